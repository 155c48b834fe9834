#!/usr/bin/python3
"""Foundation acceptance: the example matmuls on the edge NPU are numerically right (int8
bit-exact), keep the tensor unit at least as busy as the MACs require, and stay within 2x of
the roofline."""
import json
import unittest

from npusim_cli import NpusimTestCase, example

M, K, N = 256, 512, 256
MACS = M * K * N


class EdgeAcceptanceTest(NpusimTestCase):
    def setUp(self):
        super().setUp()
        self.edge = json.loads(self.ok("arch", "show", "edge"))

    def run_checked(self, model):
        stdout = self.ok("run", example(model), "--arch", "edge", "--check", "--rtol", "1e-4", "--report", "rep")
        self.assertIn("check against the reference interpreter: passed", stdout)
        return json.loads((self.tmp / "rep" / "report.json").read_text())

    def assertMeetsPerformanceBounds(self, report, dtype):
        self.assertEqual(report["arch"], "edge")
        self.assertEqual([(op["dtype"], op["macs"]) for op in report["ops"]], [(dtype, MACS)])
        tensor_units = [unit for name, unit in report["units"].items() if name.endswith("tensor")]
        self.assertEqual(len(tensor_units), 1, list(report["units"]))
        # A rows x cols array does at most rows*cols MACs per cycle.
        peak = self.edge["tensor"]["rows"] * self.edge["tensor"]["cols"]
        self.assertGreaterEqual(tensor_units[0]["busy_cycles"], MACS / peak)
        self.assertLessEqual(report["total_cycles"], 2 * report["roofline"]["attainable_cycles"])

    def test_int8_matmul_on_edge_is_bit_exact_and_near_the_roofline(self):
        report = self.run_checked("matmul_int8.onnx")
        self.assertTrue(report["check"]["passed"])
        self.assertEqual(report["check"]["max_abs_error"], 0)
        self.assertMeetsPerformanceBounds(report, "int8")

    def test_fp32_matmul_on_edge_matches_the_reference_and_is_near_the_roofline(self):
        report = self.run_checked("matmul_fp32.onnx")
        self.assertTrue(report["check"]["passed"])
        # Accumulation order differs from the interpreter's; errors stay at fp32 rounding level
        # (outputs are sums of 512 products of magnitude <= 1).
        self.assertLess(report["check"]["max_abs_error"], 1e-3)
        self.assertMeetsPerformanceBounds(report, "fp32")


if __name__ == "__main__":
    unittest.main(verbosity=2)
