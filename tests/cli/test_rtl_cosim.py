#!/usr/bin/python3
"""RTL co-simulation: `npusim run --rtl tensor,vector` computes the tensor unit's int8 tiles on
the Verilated systolic array (rtl/systolic_array.sv) and the vector unit's int32 elementwise
blocks on the Verilated lanes (rtl/vector_lanes.sv), whose measured cycles set the units'
timing. Whole models give the same outputs and cycles as the timing model; a model whose
timing parameters disagree with the RTL shows every differing command in the report."""
import json
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from npusim_cli import NpusimTestCase, example

USAGE = 2


def matmul_chain(path):
    """x (int8) -> QLinearMatMul 64x96 -> QLinearMatMul 96x32 -> int8."""
    rng = np.random.default_rng(11)
    scalar = lambda name, value, dtype: numpy_helper.from_array(np.array(value, dtype=dtype), name)
    initializers = [numpy_helper.from_array(rng.integers(-127, 128, (64, 96), dtype=np.int8), "w1"),
                    numpy_helper.from_array(rng.integers(-127, 128, (96, 32), dtype=np.int8), "w2"),
                    scalar("s", 0.05, np.float32), scalar("ws", 0.002, np.float32), scalar("z", 0, np.int8)]
    graph = helper.make_graph(
        [helper.make_node("QLinearMatMul", ["x", "s", "z", "w1", "ws", "z", "s", "z"], ["h"], name="first"),
         helper.make_node("QLinearMatMul", ["h", "s", "z", "w2", "ws", "z", "s", "z"], ["y"], name="second")],
        "chain", [helper.make_tensor_value_info("x", TensorProto.INT8, [40, 64])],
        [helper.make_tensor_value_info("y", TensorProto.INT8, [40, 32])], initializers)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


class RtlCosimTest(NpusimTestCase):
    def run_both(self, model, *args, blocks="tensor"):
        """Runs the model on the timing model and with --rtl BLOCKS; returns both reports."""
        reports = []
        for name, extra in (("tlm", []), ("rtl", ["--rtl", blocks])):
            stdout = self.ok("run", model, "--check", "--outputs", f"out_{name}", "--report", f"rep_{name}", *args, *extra)
            self.assertIn("check against the reference interpreter: passed", stdout)
            reports.append(json.loads((self.tmp / f"rep_{name}" / "report.json").read_text()))
        return reports

    def assert_same_outputs(self):
        for produced in (self.tmp / "out_tlm").iterdir():
            np.testing.assert_array_equal(np.load(produced), np.load(self.tmp / "out_rtl" / produced.name))

    def test_models_run_on_the_rtl_array_with_the_models_outputs_and_cycles(self):
        matmul_chain(self.tmp / "chain.onnx")
        for model in (self.tmp / "chain.onnx", example("small_cnn_int8.onnx"), example("matmul_int8.onnx")):
            with self.subTest(model=model.name):
                tlm, rtl = self.run_both(model, blocks="tensor,vector")
                self.assert_same_outputs()
                self.assertIsNone(tlm["rtl"])
                blocks = rtl["rtl"]["blocks"]
                self.assertEqual(set(blocks), {"tensor", "vector"})
                self.assertGreater(blocks["tensor"]["on_rtl"], 0)
                self.assertEqual(blocks["tensor"]["on_model"], 0)
                self.assertEqual(rtl["rtl"]["differences"], [])
                # Within 1% is the contract; an RTL that matches its timing model gives equality.
                self.assertLessEqual(abs(rtl["total_cycles"] - tlm["total_cycles"]), tlm["total_cycles"] // 100)
                self.assertEqual(rtl["total_cycles"], tlm["total_cycles"])

    def test_a_transposed_tile_runs_on_the_rtl_array(self):
        # y = x W, x 16x16, W 16x17 (int8) on the default 16x16 array: as stored, W's 17
        # columns take two tiles of 16 rows streamed; transposed, the array holds x and streams
        # W's 17 columns once (gemm transpose=1). The Verilated array computes that tile.
        rng = np.random.default_rng(3)
        weights = numpy_helper.from_array(rng.integers(-127, 128, (16, 17), dtype=np.int8), "w")
        graph = helper.make_graph([helper.make_node("MatMulInteger", ["x", "w"], ["y"], name="product")], "narrow",
                                  [helper.make_tensor_value_info("x", TensorProto.INT8, [16, 16])],
                                  [helper.make_tensor_value_info("y", TensorProto.INT32, [16, 17])], [weights])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), self.tmp / "narrow.onnx")
        tile = self.ok("compile", self.tmp / "narrow.onnx", "--emit", "tile", "-o", self.tmp / "narrow.npuart")
        self.assertIn("gemm.block.transposed", tile)
        tlm, rtl = self.run_both(self.tmp / "narrow.onnx")
        self.assert_same_outputs()
        self.assertEqual(rtl["rtl"]["blocks"]["tensor"]["on_rtl"], 1)
        self.assertEqual(rtl["rtl"]["differences"], [])
        self.assertEqual(rtl["total_cycles"], tlm["total_cycles"])

    def test_the_int8_cnns_int32_bias_adds_run_on_the_rtl_lanes(self):
        tlm, rtl = self.run_both(example("small_cnn_int8.onnx"), blocks="vector")
        self.assert_same_outputs()
        vector = rtl["rtl"]["blocks"]["vector"]
        self.assertGreater(vector["on_rtl"], 0)   # the convolutions' int32 bias adds
        self.assertGreater(vector["on_model"], 0)  # quantisation and pooling stay on the model
        self.assertEqual(rtl["total_cycles"], tlm["total_cycles"])

    def test_float_tiles_stay_on_the_model_and_are_counted(self):
        tlm, rtl = self.run_both(example("matmul_fp32.onnx"))
        self.assertEqual(rtl["rtl"]["blocks"]["tensor"]["on_rtl"], 0)
        self.assertGreater(rtl["rtl"]["blocks"]["tensor"]["on_model"], 0)
        self.assertEqual(rtl["total_cycles"], tlm["total_cycles"])

    def test_commands_whose_rtl_timing_differs_are_listed_and_time_the_run(self):
        # The model says int8 rows enter every other cycle; the RTL array takes one per cycle.
        tlm, rtl = self.run_both(example("matmul_int8.onnx"), "--set", "tensor.dtypes.int8.cycles_per_row=2")
        self.assert_same_outputs()
        differences = rtl["rtl"]["differences"]
        self.assertEqual(len(differences), rtl["rtl"]["blocks"]["tensor"]["on_rtl"])
        first = differences[0]
        self.assertEqual(first["block"], "tensor")
        self.assertTrue(first["op"])
        self.assertLess(first["rtl_cycles"], first["model_cycles"])
        self.assertIn("model", first["detail"])
        self.assertLess(rtl["total_cycles"], tlm["total_cycles"])

    def test_vcd_holds_the_arrays_waveforms(self):
        matmul_chain(self.tmp / "chain.onnx")
        self.ok("run", "chain.onnx", "--rtl", "tensor", "--vcd", "waves.vcd")
        text = (self.tmp / "waves.vcd").read_text()
        self.assertIn("$enddefinitions", text)
        for signal in ("c_valid", "a_valid", "w_valid"):
            self.assertIn(signal, text)
        self.assertFalse((self.tmp / "waves.vcd.part").exists())
        # Two blocks: one file each.
        self.ok("run", "chain.onnx", "--rtl", "tensor,vector", "--vcd", "both.vcd")
        self.assertIn("c_valid", (self.tmp / "both.tensor.vcd").read_text())
        self.assertIn("out_valid", (self.tmp / "both.vector.vcd").read_text())

    def test_bad_rtl_requests_are_one_line_errors(self):
        model = example("matmul_int8.onnx")
        self.assertFailsCleanly(["run", model, "--rtl", "shader"], USAGE, ["--rtl", "shader", "tensor, vector"])
        self.assertFailsCleanly(["run", model, "--vcd", "w.vcd"], USAGE, ["--vcd", "--rtl"])
        self.assertFailsCleanly(["run", model, "--arch", "server", "--rtl", "tensor"], USAGE,
                                ["128x128", "16x16"])


if __name__ == "__main__":
    unittest.main()
