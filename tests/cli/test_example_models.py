#!/usr/bin/python3
"""The bundled example networks, a small CNN (conv, BN, ReLU, pooling, flatten, Gemm) and a
transformer block (RMSNorm, Q/K/V projections, RoPE, softmax attention, output projection, MLP),
compile for the edge NPU with every op on it, run right against the reference interpreter, and
report their ops by the model's own node names."""
import json
import unittest

from npusim_cli import NpusimTestCase, example


class ExampleModelsTest(NpusimTestCase):
    def run_checked(self, model, *flags, report="rep"):
        stdout = self.ok("run", example(model), "--arch", "edge", "--check", "--report", report, *flags)
        self.assertIn("check against the reference interpreter: passed", stdout)
        return json.loads((self.tmp / report / "report.json").read_text())

    def test_small_cnn(self):
        report = self.run_checked("small_cnn.onnx")
        names = {op["name"] for op in report["ops"]}
        # The convolutions are Im2Col and a Gemm, named after their Conv node; the batch norms
        # are folded into them.
        self.assertTrue({"conv1.im2col", "conv1.gemm", "conv2.gemm", "relu1", "pool2", "fc"} <= names, names)
        self.assertFalse({"bn1", "bn2"} & names)
        self.assertGreater(sum(op["macs"] for op in report["ops"]), 0)

    def test_transformer_block(self):
        report = self.run_checked("transformer_block.onnx")
        ops = {op["name"]: op for op in report["ops"]}
        for name in ("q_proj", "scores", "attn_softmax", "context", "o_proj", "up_proj", "down_proj"):
            self.assertIn(name, ops)
        # The projections are compute-bound on edge and run near the tensor unit's peak.
        self.assertEqual(ops["q_proj"]["bound"], "compute")
        self.assertGreater(ops["q_proj"]["efficiency"], 0.6)

    def test_fusion_keeps_intermediates_off_dram(self):
        fused = self.run_checked("transformer_block.onnx", report="fused")
        apart = self.run_checked("transformer_block.onnx", "--no-fusion", report="apart")

        def dram_bytes(report):
            return report["dram"]["bytes_read"] + report["dram"]["bytes_written"]

        self.assertLess(dram_bytes(fused), dram_bytes(apart))
        # The SiLU gate's kernel runs inside the product's: no cycles of its own.
        self.assertEqual({op["name"]: op for op in fused["ops"]}["silu_gate"]["cycles"], 0)
        self.assertGreater({op["name"]: op for op in apart["ops"]}["silu_gate"]["cycles"], 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
