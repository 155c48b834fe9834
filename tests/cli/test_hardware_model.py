#!/usr/bin/python3
"""Hardware-model properties seen from the command line: timing-only runs give exactly the
cycles of full runs; no GEMM beats its roofline on any preset; the cycle accounting holds for
every unit; a large compute-bound int8 GEMM keeps the edge array at least 90% busy."""
import json
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from npusim_cli import NpusimTestCase, example

PRESETS = ("tiny", "edge", "mobile", "server")


def gemm_model(path, m, k, n, int8, seed=0):
    """A MatMul (fp32) or MatMulInteger (int8) of an [m, k] input by constant [k, n] weights."""
    rng = np.random.default_rng(seed)
    if int8:
        weights = rng.integers(-128, 128, (k, n)).astype(np.int8)
        node = helper.make_node("MatMulInteger", ["a", "w"], ["y"], name="gemm")
        types = (TensorProto.INT8, TensorProto.INT32)
    else:
        weights = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        node = helper.make_node("MatMul", ["a", "w"], ["y"], name="gemm")
        types = (TensorProto.FLOAT, TensorProto.FLOAT)
    graph = helper.make_graph([node], "gemm", [helper.make_tensor_value_info("a", types[0], [m, k])],
                              [helper.make_tensor_value_info("y", types[1], [m, n])],
                              [numpy_helper.from_array(weights, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


class HardwareModelTest(NpusimTestCase):
    def report(self, *args):
        self.ok("run", *args, "--report", "rep")
        return json.loads((self.tmp / "rep" / "report.json").read_text())

    def test_timing_only_runs_give_the_cycles_of_full_runs(self):
        for model in ("matmul_int8.onnx", "matmul_fp32.onnx", "mlp.onnx"):
            for preset in ("edge", "tiny"):
                with self.subTest(model=model, preset=preset):
                    full = self.report(example(model), "--arch", preset)
                    timing = self.report(example(model), "--arch", preset, "--timing-only")
                    self.assertTrue(timing["timing_only"])
                    self.assertEqual(timing["total_cycles"], full["total_cycles"])
                    self.assertEqual(timing["units"], full["units"])
                    self.assertEqual(timing["dram"], full["dram"])

    def test_no_gemm_beats_its_roofline_and_every_unit_accounts_for_its_cycles(self):
        shapes = [(64, 64, 64, True), (96, 200, 48, False), (256, 512, 128, True), (33, 17, 300, False)]
        for m, k, n, int8 in shapes:
            model = gemm_model(self.tmp / f"gemm_{m}_{k}_{n}.onnx", m, k, n, int8)
            for preset in PRESETS:
                with self.subTest(shape=(m, k, n), int8=int8, preset=preset):
                    report = self.report(model, "--arch", preset, "--timing-only")
                    total = report["total_cycles"]
                    self.assertGreaterEqual(total, report["roofline"]["attainable_cycles"])
                    for name, unit in report["units"].items():
                        stalls = sum(unit["stall_cycles"].values())
                        self.assertEqual(unit["busy_cycles"] + stalls + unit["idle_cycles"], total, name)

    def test_a_large_int8_gemm_keeps_the_edge_array_busy(self):
        model = gemm_model(self.tmp / "gemm_1k.onnx", 1024, 1024, 1024, True)
        report = self.report(model, "--arch", "edge", "--timing-only")
        self.assertGreaterEqual(report["roofline"]["efficiency"], 0.90)


if __name__ == "__main__":
    unittest.main(verbosity=2)
