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
    def test_fast_subset_matches_torch_on_edge(self):
        build = Path(os.environ["NPUSIM"]).resolve().parents[1]
        with tempfile.TemporaryDirectory() as tmp:
            rows_file = Path(tmp) / "rows.json"
            result = subprocess.run([sys.executable, ZOO, "--build", build, "--cache", Path(tmp) / "models",
                                     "--models", MODELS, "--presets", "edge", "--per-op", "--json", rows_file],
                                    capture_output=True, text=True, timeout=1200)
            self.assertEqual(result.returncode, 0, result.stderr)
            rows = json.loads(rows_file.read_text())
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


if __name__ == "__main__":
    unittest.main()
