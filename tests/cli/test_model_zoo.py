#!/usr/bin/python3
"""A fast subset of the model zoo (tests/bench/model_zoo.py) as a test: real architectures with
seeded random weights, exported by torch, compiled and run on a preset, outputs matching torch."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ZOO = Path(__file__).resolve().parents[1] / "bench" / "model_zoo.py"
# A CNN with PReLU, a bidirectional LSTM, a shifted-window attention block, a causal decoder,
# MobileNetV2's depthwise convolutions and a detector whose NMS keeps as many boxes as the data allow.
MODELS = "prelu_cnn,lstm_tagger,swin_block,gpt_decoder,mobilenet_v2,detection_head"


class ModelZoo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.build = Path(os.environ["NPUSIM"]).resolve().parents[1]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def zoo(self, *args):
        rows_file = Path(self.tmp.name) / "rows.json"
        result = subprocess.run([sys.executable, ZOO, "--build", self.build, "--cache", Path(self.tmp.name) / "models",
                                 "--presets", "edge", "--json", rows_file, *args],
                                capture_output=True, text=True, timeout=1200)
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(rows_file.read_text())

    def test_fast_subset_matches_torch_on_edge(self):
        rows = self.zoo("--models", MODELS, "--per-op")
        self.assertEqual([row["model"] for row in rows], MODELS.split(","))
        for row in rows:
            with self.subTest(model=row["model"]):
                self.assertNotIn("error", row)
                self.assertLessEqual(row["max_error"], 1e-3)
                self.assertGreater(row["cycles"], 0)
                # Both rooflines are bounds: no op and no run beats them.
                self.assertEqual(row["bound_violations"], [])
                self.assertLessEqual(row["efficiency"], row["shape_efficiency"])
                self.assertLessEqual(row["shape_efficiency"], 1.0)
                self.assertLessEqual(row["compile_rss_mib"], 4096)

    def test_bf16_and_int8_cost_fewer_cycles_and_bytes_at_a_small_error(self):
        # A CNN with depthwise convolutions and a decoder: bf16 and int8 (calibrated on seeded
        # samples) against fp32, side by side; on edge int8 multiplies twice as fast as bf16.
        rows = self.zoo("--models", "mobilenet_v2,gpt_decoder", "--precisions", "fp32,bf16,int8")
        by = {(row["model"], row["precision"]): row for row in rows}
        for model in ("mobilenet_v2", "gpt_decoder"):
            with self.subTest(model=model):
                wide, narrow, int8 = by[(model, "fp32")], by[(model, "bf16")], by[(model, "int8")]
                self.assertNotIn("error", narrow)
                self.assertNotIn("error", int8)
                self.assertLess(narrow["cycles"], wide["cycles"])
                self.assertLess(narrow["dram_bytes"], 0.75 * wide["dram_bytes"])
                self.assertGreaterEqual(narrow["cosine"], 0.999)
                self.assertLess(narrow["max_error"], 0.05)
                self.assertLess(int8["cycles"], narrow["cycles"])
                self.assertLess(int8["dram_bytes"], narrow["dram_bytes"])
                self.assertGreaterEqual(int8["cosine"], 0.99)
                self.assertLess(int8["max_error"], 0.1)


if __name__ == "__main__":
    unittest.main()
