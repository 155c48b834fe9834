#!/usr/bin/python3
"""Shape buckets: a model with input [1, seq, 64] compiled with --bucket seq=64,128,256 runs
with seq=100 in bucket 128 and seq=200 in bucket 256, padded, its outputs cut back and
matching the reference at the actual size; seq=300 and models that mix padded positions into
real ones are clear errors."""
import json
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from npusim_cli import NpusimTestCase

USAGE = 2


def save_model(path, nodes, initializers=()):
    graph = helper.make_graph(nodes, "dynamic", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "seq", 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "seq", 64])], list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def projection_model(path):
    """MatMul, bias, ReLU and LayerNormalization over the features: rows stay apart."""
    rng = np.random.default_rng(3)
    save_model(path, [
        helper.make_node("MatMul", ["x", "w"], ["h"], name="proj"),
        helper.make_node("Add", ["h", "b"], ["hb"], name="bias"),
        helper.make_node("Relu", ["hb"], ["r"], name="act"),
        helper.make_node("LayerNormalization", ["r", "gamma"], ["y"], name="norm", axis=-1),
    ], [numpy_helper.from_array((rng.standard_normal((64, 64)) / 8).astype(np.float32), "w"),
        numpy_helper.from_array(rng.standard_normal(64).astype(np.float32), "b"),
        numpy_helper.from_array(np.ones(64, np.float32), "gamma")])


class ShapeBucketTest(NpusimTestCase):
    def setUp(self):
        super().setUp()
        projection_model(self.tmp / "dyn.onnx")
        self.ok("compile", "dyn.onnx", "--bucket", "seq=64,128,256", "-o", "dyn.npuart")

    def run_with(self, seq):
        directory = self.tmp / f"in{seq}"
        directory.mkdir()
        np.save(directory / "x.npy", np.random.default_rng(seq).standard_normal((1, seq, 64)).astype(np.float32))
        return self.npusim("run", "dyn.npuart", "--inputs", directory, "--check", "--model", "dyn.onnx",
                           "--report", f"rep{seq}", "--outputs", f"out{seq}")

    def test_each_size_runs_in_the_smallest_bucket_that_holds_it(self):
        for seq, bucket in ((100, 128), (200, 256), (64, 64)):
            with self.subTest(seq=seq):
                stdout = self.assertSucceeded(self.run_with(seq)).stdout
                self.assertIn("check against the reference interpreter: passed", stdout)
                self.assertIn(f"bucket: seq={bucket} (compiled size; the inputs have seq={seq}", stdout)
                self.assertIn(f"outputs: out{seq}/ (y.npy)", stdout)
                report = json.loads((self.tmp / f"rep{seq}" / "report.json").read_text())
                self.assertEqual(report["bucket"], {"symbol": "seq", "size": bucket, "actual": seq})
                self.assertEqual(np.load(self.tmp / f"out{seq}" / "y.npy").shape, (1, seq, 64))

    def test_inputs_as_tensor_protos_take_their_size_from_the_file(self):
        # input_0.pb, as ONNX's test data holds inputs: the size is read from the tensor itself.
        directory = self.tmp / "pb"
        directory.mkdir()
        x = np.random.default_rng(5).standard_normal((1, 100, 64)).astype(np.float32)
        (directory / "input_0.pb").write_bytes(numpy_helper.from_array(x, "x").SerializeToString())
        stdout = self.ok("run", "dyn.npuart", "--inputs", directory, "--check", "--model", "dyn.onnx",
                         "--report", "rep_pb", "--outputs", "out_pb")
        self.assertIn("check against the reference interpreter: passed", stdout)
        report = json.loads((self.tmp / "rep_pb" / "report.json").read_text())
        self.assertEqual(report["bucket"], {"symbol": "seq", "size": 128, "actual": 100})
        self.assertEqual(np.load(self.tmp / "out_pb" / "y.npy").shape, (1, 100, 64))

    def test_an_input_whose_fixed_dims_differ_is_named(self):
        directory = self.tmp / "bad"
        directory.mkdir()
        np.save(directory / "x.npy", np.zeros((1, 100, 32), np.float32))
        self.assertFailsCleanly(["run", "dyn.npuart", "--inputs", directory], USAGE, ["input 'x'", "[1,100,32]"])

    def test_a_size_above_the_largest_bucket_is_a_clear_error(self):
        result = self.run_with(300)
        self.assertEqual(result.returncode, USAGE, result.stderr)
        self.assertIn("seq=300 is larger than the largest bucket (seq=256)", result.stderr)
        self.assertFalse((self.tmp / "out300").exists())

    def test_the_manifest_lists_every_bucket(self):
        summary = json.loads(self.ok("inspect", "dyn.npuart", "--json"))
        self.assertEqual([b["size"] for b in summary["buckets"]], [64, 128, 256])
        self.assertEqual(summary["buckets"][1]["inputs"][0]["shape"], [1, 128, 64])
        self.assertEqual(summary["inputs"][0]["symbols"], ["", "seq", ""])
        sections = {s["name"] for s in summary["sections"]}
        self.assertTrue({"commands@seq=64", "commands@seq=128", "commands@seq=256"} <= sections)

    def test_random_inputs_take_their_size_from_dim(self):
        stdout = self.ok("run", "dyn.npuart", "--dim", "seq=90", "--report", "rep")
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        self.assertEqual(report["bucket"], {"symbol": "seq", "size": 128, "actual": 90})

    def test_an_onnx_model_runs_at_a_given_size(self):
        stdout = self.ok("run", "dyn.onnx", "--dim", "seq=100", "--check")
        self.assertIn("check against the reference interpreter: passed", stdout)


class ShapeBucketRefusalTest(NpusimTestCase):
    def test_a_model_mixing_along_the_dim_is_refused_naming_the_op(self):
        save_model(self.tmp / "mix.onnx", [helper.make_node("Relu", ["x"], ["r"], name="act"),
                                           helper.make_node("Softmax", ["r"], ["y"], name="attn_softmax", axis=1)])
        self.assertFailsCleanly(["compile", "mix.onnx", "--bucket", "seq=64,128", "-o", "mix.npuart"], USAGE,
                                ["attn_softmax", "Softmax", "seq"])

    def test_cpu_segments_run_in_every_bucket(self):
        # A running sum over the features has no NPU lowering: each bucket carries its kernel.
        rng = np.random.default_rng(5)
        save_model(self.tmp / "cum.onnx", [
            helper.make_node("MatMul", ["x", "w"], ["h"], name="proj"),
            helper.make_node("CumSum", ["h", "features"], ["y"], name="running"),
        ], [numpy_helper.from_array((rng.standard_normal((64, 64)) / 8).astype(np.float32), "w"),
            numpy_helper.from_array(np.array(2, dtype=np.int64), "features")])
        self.ok("compile", "cum.onnx", "--bucket", "seq=64,128", "-o", "cum.npuart")
        sections = {s["name"] for s in json.loads(self.ok("inspect", "cum.npuart", "--json"))["sections"]}
        self.assertTrue({"cpu@seq=64", "cpu@seq=128"} <= sections)
        (self.tmp / "in").mkdir()
        np.save(self.tmp / "in" / "x.npy", rng.standard_normal((1, 100, 64)).astype(np.float32))
        stdout = self.ok("run", "cum.npuart", "--inputs", "in", "--check", "--model", "cum.onnx", "--report", "rep")
        self.assertIn("check against the reference interpreter: passed", stdout)
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        self.assertEqual(report["bucket"]["size"], 128)
        self.assertEqual([f["op"] for f in report["findings"] if f["kind"] == "cpu_fallback"], ["running"])
        # Summing along seq itself would add padded rows into real ones.
        save_model(self.tmp / "along.onnx", [helper.make_node("CumSum", ["x", "seq_axis"], ["y"], name="along_seq")],
                   [numpy_helper.from_array(np.array(1, dtype=np.int64), "seq_axis")])
        self.assertFailsCleanly(["compile", "along.onnx", "--bucket", "seq=64,128", "-o", "along.npuart"], USAGE,
                                ["along_seq", "CumSum", "seq"])

    def test_a_model_computing_with_the_size_is_refused(self):
        # y = x / seq: the frontend folds Shape(x)[1] into a constant that padding would change.
        save_model(self.tmp / "mean.onnx", [
            helper.make_node("Shape", ["x"], ["s"], name="shape"),
            helper.make_node("Gather", ["s", "one"], ["n"], name="seq_len", axis=0),
            helper.make_node("Cast", ["n"], ["nf"], name="to_float", to=TensorProto.FLOAT),
            helper.make_node("Div", ["x", "nf"], ["y"], name="scale"),
        ], [numpy_helper.from_array(np.array(1, dtype=np.int64), "one")])
        self.assertFailsCleanly(["compile", "mean.onnx", "--bucket", "seq=64,128", "-o", "mean.npuart"], USAGE,
                                ["computed from the size of 'seq'"])

    def test_a_symbolic_model_without_sizes_says_how_to_give_them(self):
        projection_model(self.tmp / "dyn.onnx")
        self.assertFailsCleanly(["compile", "dyn.onnx", "-o", "dyn.npuart"], USAGE, ["seq", "--bucket"])

    def test_malformed_bucket_sizes_are_named(self):
        projection_model(self.tmp / "dyn.onnx")
        self.assertFailsCleanly(["compile", "dyn.onnx", "--bucket", "seq=64,abc", "-o", "dyn.npuart"], USAGE,
                                ["--bucket", "abc"])
        self.assertFailsCleanly(["compile", "dyn.onnx", "--bucket", "batch=2", "-o", "dyn.npuart"], USAGE,
                                ["batch"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
