#!/usr/bin/python3
"""Precision as a design axis: `--precision bf16|fp16` runs the GEMMs in 16-bit floats (casts
explicit in the IR, weights converted at compile time, the tensors between GEMMs moved narrow),
costs fewer cycles and DRAM bytes than fp32, and `--check` reports what it costs in accuracy
against the fp32 reference while holding the NPU to its own program's semantics. Overrides keep
ops wide; reports, the mapping and `npusim diff` carry the precision."""
import json
import re
import unittest

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

from npusim_cli import NpusimTestCase, example


class PrecisionTest(NpusimTestCase):
    def run_report(self, directory, *args):
        self.ok("run", *args, "--report", directory)
        return json.loads((self.tmp / directory / "report.json").read_text())

    def test_bf16_and_fp16_cost_fewer_cycles_and_bytes_and_report_their_error(self):
        wide = self.run_report("fp32", example("mlp.onnx"), "--check")
        self.assertEqual(wide["precision"], "fp32")
        self.assertIsNone(wide["check"]["program"])
        for precision in ("bf16", "fp16"):
            with self.subTest(precision=precision):
                narrow = self.run_report(precision, example("mlp.onnx"), "--check", "--precision", precision)
                self.assertEqual(narrow["precision"], precision)
                self.assertLess(narrow["total_cycles"], wide["total_cycles"] * 0.6)
                bytes_of = lambda r: r["dram"]["bytes_read"] + r["dram"]["bytes_written"]
                self.assertLess(bytes_of(narrow), bytes_of(wide) * 0.5)
                check = narrow["check"]
                self.assertEqual(check["precision"], precision)
                self.assertTrue(check["passed"])
                self.assertTrue(check["program"]["passed"])
                # The precision costs something, measured: errors well above fp32's, cosine near 1.
                [logits] = check["outputs"]
                self.assertGreater(logits["max_rel_error"], 10 * wide["check"]["max_rel_error"])
                self.assertLess(logits["max_rel_error"], 0.02)
                self.assertGreater(logits["cosine"], 0.999)
                self.assertGreater(logits["snr_db"], 30)
                # [64, 128] scores: a classifier's, so top-1 and top-5 agreement are reported.
                self.assertGreaterEqual(logits["top1_agreement"], 0.9)
                self.assertEqual(logits["top5_agreement"], 1.0)
                markdown = (self.tmp / precision / "report.md").read_text()
                self.assertIn(f"{precision} against the fp32 reference, logits: max abs error", markdown)

    def test_a_tolerance_given_holds_the_precision_to_it(self):
        result = self.npusim("run", example("mlp.onnx"), "--check", "--precision", "bf16", "--rtol", "1e-6",
                             "--atol", "1e-7")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("beyond the tolerance", result.stderr)
        self.ok("run", example("mlp.onnx"), "--check", "--precision", "bf16", "--rtol", "0.05", "--atol", "0.01")

    def test_the_ir_shows_the_casts_and_the_mapping_the_precision_of_each_op(self):
        graph = self.ok("compile", example("mlp.onnx"), "--precision", "bf16", "--emit", "graph")
        self.assertIn("constant bf16[256,512]", graph)  # the weights, converted when compiled
        self.assertRegex(graph, r"= Cast\(%x\) .*to = 16")  # the input, cast on the NPU
        # fc1's result is read by the fp32 ReLU: the accumulator's sums stay fp32 for it.
        self.assertRegex(graph, r"%h = Gemm\(.*output_type = 1")
        tile = self.ok("compile", example("mlp.onnx"), "--precision", "bf16", "--emit", "tile")
        # The ReLU and the cast after it run on fc1's accumulator; fc1 stores bf16.
        self.assertRegex(tile, r"tile\.gemm @fc1 .*bf16 -> fp32 -> bf16 .*epilogue=relu")
        mapping = self.ok("compile", example("mlp.onnx"), "--precision", "bf16", "--mapping")
        rows = {line.split()[0]: line.split() for line in mapping.splitlines()[1:]}
        self.assertEqual(rows["fc1"][2], "bf16")
        self.assertEqual(rows["fc2"][2], "bf16")
        self.assertEqual(rows["relu1"][2], "fp32")

    def test_overrides_keep_ops_wide_by_name_or_type(self):
        by_name = self.ok("compile", example("mlp.onnx"), "--precision", "bf16", "--precision-override", "fc2=fp32",
                          "--mapping")
        rows = {line.split()[0]: line.split() for line in by_name.splitlines()[1:]}
        self.assertEqual(rows["fc1"][2], "bf16")
        self.assertEqual(rows["fc2"][2], "fp32")
        by_type = self.ok("compile", example("mlp.onnx"), "--precision", "bf16", "--precision-override", "Gemm=fp32",
                          "--mapping")
        self.assertNotIn("bf16", by_type)
        self.ok("compile", example("mlp.onnx"), "--precision", "bf16", "--precision-override", "fc2=fp32",
                "-o", "m.npuart")
        report = self.run_report("rep", "m.npuart", "--check", "--model", example("mlp.onnx"))
        self.assertTrue(report["check"]["program"]["passed"])

    def test_convolutions_run_narrow_and_match_their_program(self):
        for model in ("small_cnn.onnx", "batched_conv_classifier.onnx", "transformer_block.onnx"):
            with self.subTest(model=model):
                out = self.ok("run", example(model), "--check", "--precision", "bf16")
                self.assertIn("check against the compiled bf16 program: passed", out)
                cosines = [float(c) for c in re.findall(r"cosine ([0-9.]+)", out)]
                self.assertTrue(cosines)
                self.assertGreater(min(cosines), 0.999)

    def test_per_op_drift_names_the_op_where_the_error_enters(self):
        # bf16 enters at the first projection; the normalisation before it runs in fp32.
        result = self.npusim("run", example("transformer_block.onnx"), "--precision", "bf16", "--check-per-op",
                             "--rtol", "1e-4", "--report", "rep")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("the first past 0.01% is op 'q_proj'", result.stdout)
        per_op = json.loads((self.tmp / "rep" / "report.json").read_text())["check"]["per_op"]
        self.assertEqual(per_op["first_drift"], "q_proj")
        self.assertEqual(per_op["tolerance"], 1e-4)
        ops = [d["op"] for d in per_op["ops"]]
        self.assertLess(per_op["ops"][ops.index("attn_norm.gain_mul")]["max_rel_error"], 1e-6)
        # At fp32 the program computes what the reference does: nothing drifts.
        out = self.ok("run", example("transformer_block.onnx"), "--check-per-op")
        self.assertIn("none drifts past 1% of its largest magnitude", out)

    def test_diff_sets_two_precisions_side_by_side(self):
        self.run_report("A", example("mlp.onnx"), "--check")
        self.run_report("B", example("mlp.onnx"), "--check", "--precision", "bf16")
        text = self.ok("diff", "A", "B")
        self.assertIn("(mlp on edge at bf16)", text)
        self.assertRegex(text, r"DRAM bytes: \d+ -> \d+ +-\d+ \(-\d+\.\d%\)")
        self.assertRegex(text, r"error against the reference interpreter: max rel error .* -> max rel error")
        diff = json.loads(self.ok("diff", "A", "B", "--json"))
        self.assertEqual((diff["a"]["precision"], diff["b"]["precision"]), ("fp32", "bf16"))
        self.assertLess(diff["b"]["dram_bytes"], diff["a"]["dram_bytes"])
        self.assertGreater(diff["b"]["max_rel_error"], diff["a"]["max_rel_error"])

    def test_a_model_declared_in_fp16_runs_its_gemms_on_the_tensor_unit(self):
        random = np.random.RandomState(0)
        weight = numpy_helper.from_array(random.randn(16, 8).astype(np.float16), "w")
        bias = numpy_helper.from_array(random.randn(8).astype(np.float16), "b")
        nodes = {"MatMul": helper.make_node("MatMul", ["x", "w"], ["y"]),
                 # A 16-bit bias, scaled: stored as fp32 for the accumulator, beta folded in.
                 "Gemm": helper.make_node("Gemm", ["x", "w", "b"], ["y"], beta=0.5)}
        for op, node in nodes.items():
            with self.subTest(op=op):
                graph = helper.make_graph([node], "half", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [4, 16])],
                                          [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [4, 8])], [weight, bias])
                save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(self.tmp / "half.onnx"))
                mapping = self.ok("compile", "half.onnx", "--mapping")
                self.assertRegex(mapping, op + r" +fp16 +tensor unit")
                out = self.ok("run", "half.onnx", "--inputs", "random", "--check")
                self.assertIn("check against the reference interpreter: passed", out)

    def test_bad_precisions_are_refused_in_one_line(self):
        self.assertFailsCleanly(["compile", example("mlp.onnx"), "--precision", "fp8", "-o", "m.npuart"], 2,
                                ["--precision", "fp8", "bf16"])
        self.assertFailsCleanly(["compile", example("mlp.onnx"), "--precision", "bf16", "--precision-override", "fc2",
                                 "-o", "m.npuart"], 2, ["--precision-override", "OP=PRECISION"])
        self.assertFailsCleanly(["compile", example("mlp.onnx"), "--precision", "bf16", "--precision-override",
                                 "fc2=fp64", "-o", "m.npuart"], 2, ["fp64"])
        self.ok("compile", example("mlp.onnx"), "-o", "m.npuart")
        self.assertFailsCleanly(["run", "m.npuart", "--precision", "bf16"], 2, ["--precision", "artifact", "recompile"])


if __name__ == "__main__":
    unittest.main()
