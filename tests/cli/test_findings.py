#!/usr/bin/python3
"""Every finding kind at the op that causes it: a model (or a design point) crafted to cause
bank conflicts, sync stalls, dispatch overhead, memory-bound re-reads, low array utilisation;
each finding names the op, the cycles lost, a message and a hint, most cycles lost first.
(Spill, reformat and cpu_fallback have their own tests.)"""
import json
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from npusim_cli import NpusimTestCase

RNG = np.random.default_rng(0)
F = TensorProto.FLOAT


def save(path, node, inputs, outputs, initializers=()):
    graph = helper.make_graph([node], path.stem, inputs, outputs, list(initializers))
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


class FindingsTest(NpusimTestCase):
    def findings(self, model, *args):
        self.ok("run", model, "--timing-only", "--report", "rep", *args)
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        lost = [f["cycles_lost"] for f in report["findings"]]
        self.assertEqual(lost, sorted(lost, reverse=True))
        return report

    def assert_finding(self, report, kind, op):
        found = [f for f in report["findings"] if f["kind"] == kind]
        self.assertEqual([f["op"] for f in found], [op], report["findings"])
        finding = found[0]
        self.assertGreater(finding["cycles_lost"], 0)
        self.assertIn(op, finding["message"])
        self.assertTrue(finding["hint"])
        return finding

    def matmul(self, name, m, k, n, dtype=F):
        save(self.tmp / f"{name}.onnx", helper.make_node("MatMul" if dtype == F else "MatMulInteger", ["x", "w"], ["y"], name=name),
             [helper.make_tensor_value_info("x", dtype, [m, k])],
             [helper.make_tensor_value_info("y", F if dtype == F else TensorProto.INT32, [m, n])],
             [numpy_helper.from_array(RNG.standard_normal((k, n)).astype(np.float32) if dtype == F
                                      else RNG.integers(-100, 100, (k, n)).astype(np.int8), "w")])
        return self.tmp / f"{name}.onnx"

    def test_low_utilization_at_a_gemm_too_small_for_the_array(self):
        # K = N = 3 on a 16x16 array: 9 of 256 PEs work.
        report = self.findings(self.matmul("skinny", 512, 3, 3))
        finding = self.assert_finding(report, "low_utilization", "skinny")
        self.assertIn("16x16 array", finding["message"])

    def test_memory_bound_at_a_gemm_reading_its_operands_again(self):
        # 1 MiB of int8 weights against tiny's 32 KiB of SRAM: the blocks read operands again.
        report = self.findings(self.matmul("wide", 256, 1024, 1024, TensorProto.INT8), "--arch", "tiny")
        finding = self.assert_finding(report, "memory_bound", "wide")
        self.assertIn("compulsory", finding["message"])
        self.assertIn("sram.size_kib", finding["hint"])

    def test_sync_stall_at_an_op_whose_units_do_not_overlap(self):
        save(self.tmp / "neg.onnx", helper.make_node("Neg", ["x"], ["y"], name="negate"),
             [helper.make_tensor_value_info("x", F, [1024, 64])], [helper.make_tensor_value_info("y", F, [1024, 64])])
        # 16 KiB of SRAM holds small blocks only: each block's load, negation and store wait on
        # one another more than they overlap.
        report = self.findings(self.tmp / "neg.onnx", "--set", "sram.size_kib=16")
        finding = self.assert_finding(report, "sync_stall", "negate")
        self.assertIn("semaphore waits", finding["message"])

    def test_bank_conflict_when_the_units_share_few_banks(self):
        # One SRAM bank: the DMA's loads and the array's operand reads take turns.
        model = self.matmul("shared", 256, 256, 256)
        report = self.findings(model, "--set", "sram.banks=1")
        finding = self.assert_finding(report, "bank_conflict", "shared")
        self.assertIn("sram.banks", finding["hint"])
        # With the preset's 16 banks, the conflicts stay below the threshold.
        self.assertFalse([f for f in self.findings(model)["findings"] if f["kind"] == "bank_conflict"])

    def test_dispatch_overhead_when_many_small_commands_meet_a_slow_control_core(self):
        # A gather of 256 scattered 16-byte rows: one DMA each, each dispatched by the control core.
        save(self.tmp / "gather.onnx", helper.make_node("Gather", ["x", "i"], ["y"], name="pick_rows", axis=0),
             [helper.make_tensor_value_info("x", F, [512, 4])], [helper.make_tensor_value_info("y", F, [256, 4])],
             [numpy_helper.from_array(RNG.permutation(512)[:256].astype(np.int64), "i")])
        report = self.findings(self.tmp / "gather.onnx", "--set", "control_core.dispatch_cycles=100")
        finding = self.assert_finding(report, "dispatch_overhead", "pick_rows")
        self.assertIn("control_core.dispatch_cycles", finding["hint"])


if __name__ == "__main__":
    unittest.main()
