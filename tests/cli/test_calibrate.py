"""npusim calibrate: the microbenchmark suite on the simulator, the least-squares fit of the cost
model's weights, its scores on a held-out split, and the parameter file the compiler reads."""
import csv
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npusim_cli import NpusimTestCase, example  # noqa: E402

FEATURES = ["compute", "memory", "transfer", "exposed", "dispatch", "per_block", "per_op"]
SCORE = re.compile(r"^\s+(analytical model|calibrated)\s+MAPE\s+([\d.]+)%\s+max error\s+([\d.]+)%\s+Kendall tau ([-\d.]+)",
                   re.M)


class CalibrateTest(NpusimTestCase):
    def calibrate(self, arch):
        out = self.ok("calibrate", "--arch", arch, "-o", f"{arch}.json", "--samples", f"{arch}.csv")
        params = json.loads((self.tmp / f"{arch}.json").read_text())
        with (self.tmp / f"{arch}.csv").open() as f:
            samples = list(csv.DictReader(f))
        return out, params, samples

    def test_edge_calibration_meets_its_targets_on_the_held_out_split(self):
        out, params, samples = self.calibrate("edge")
        self.assertEqual(params["arch"], "edge")
        self.assertEqual(list(params["weights"]), FEATURES)
        # The DMA timing stays physical: at most the DRAM's bandwidth, at most a burst a cycle.
        self.assertGreater(params["dma"]["bandwidth_fraction"], 0)
        self.assertLessEqual(params["dma"]["bandwidth_fraction"], 1)
        self.assertGreaterEqual(params["dma"]["burst_cycles"], 1)
        held_out = params["calibration"]["held_out"]["after"]
        self.assertLessEqual(held_out["mape"], 0.05)
        self.assertGreaterEqual(held_out["kendall_tau"], 0.9)
        self.assertGreater(held_out["rankings"], 5)
        # The printed scores are the file's (training, then held-out; before, then after).
        printed = SCORE.findall(out)
        self.assertEqual(len(printed), 4)
        self.assertAlmostEqual(float(printed[3][1]), held_out["mape"] * 100, places=1)
        self.assertAlmostEqual(float(printed[3][3]), held_out["kendall_tau"], places=2)

        # The samples: every op of the suite, a third held out, and estimates that are the
        # weighted sums of their features.
        self.assertGreater(len(samples), 100)
        held = [s for s in samples if s["held_out"] == "1"]
        self.assertGreater(len(held), len(samples) // 5)
        self.assertTrue({s["bench"].split("_")[0] for s in samples} >= {"gemm", "Add", "Relu", "transpose", "conv"})
        for s in samples:
            with self.subTest(bench=s["bench"]):
                self.assertGreater(float(s["simulated"]), 0)
                # The features are those under the fitted DMA timing: the estimate weighs them.
                weighted = sum(params["weights"][f] * float(s[f]) for f in FEATURES)
                self.assertAlmostEqual(float(s["estimate_after"]), weighted, delta=1e-3 * max(1.0, weighted))
                self.assertGreater(float(s["estimate_before"]), 0)
        errors = [abs(float(s["estimate_after"]) - float(s["simulated"])) / float(s["simulated"]) for s in held]
        self.assertAlmostEqual(sum(errors) / len(errors), held_out["mape"], places=4)
        # The energy estimate against the simulator's per-op energy: fitted scale, held-out error.
        self.assertGreater(params["energy"]["scale"], 0)
        self.assertLessEqual(held_out["energy_mape"], 0.10)
        for s in samples:
            self.assertGreater(float(s["energy_simulated"]), 0, s["bench"])
        energy_errors = [abs(float(s["energy_estimate_after"]) - float(s["energy_simulated"])) / float(s["energy_simulated"])
                         for s in held]
        self.assertAlmostEqual(sum(energy_errors) / len(energy_errors), held_out["energy_mape"], places=4)

    def test_larger_presets_calibrate_to_a_better_model_that_meets_the_targets(self):
        for arch in ("mobile", "server"):
            with self.subTest(arch=arch):
                _, params, _ = self.calibrate(arch)
                held_out = params["calibration"]["held_out"]
                self.assertLess(held_out["after"]["mape"], held_out["before"]["mape"])
                self.assertLessEqual(held_out["after"]["mape"], 0.05)
                self.assertGreaterEqual(held_out["after"]["kendall_tau"], 0.9)
                self.assertLessEqual(params["dma"]["bandwidth_fraction"], 1)

    def test_the_compiler_reads_the_fitted_weights_for_their_architecture_only(self):
        self.calibrate("edge")
        model = example("mlp.onnx")
        self.ok("compile", model, "--cost-params", "edge.json", "-o", "mlp.npuart")
        self.assertTrue((self.tmp / "mlp.npuart").is_file())
        self.ok("run", model, "--cost-params", "edge.json", "--check")
        self.assertFailsCleanly(["compile", model, "--arch", "mobile", "--cost-params", "edge.json", "-o", "m.npuart"],
                                2, ["another architecture", "npusim calibrate"])
        params = json.loads((self.tmp / "edge.json").read_text())
        del params["weights"]["memory"]
        (self.tmp / "broken.json").write_text(json.dumps(params))
        self.assertFailsCleanly(["compile", model, "--cost-params", "broken.json", "-o", "b.npuart"], 2, ["broken.json", "memory"])
        self.assertFailsCleanly(["compile", model, "--cost-params", "missing.json", "-o", "b.npuart"], 2, ["missing.json"])

    def test_calibration_is_reproducible(self):
        _, first, _ = self.calibrate("edge")
        (self.tmp / "edge.json").rename(self.tmp / "first.json")
        _, second, _ = self.calibrate("edge")
        self.assertEqual(first, second)


if __name__ == "__main__":
    unittest.main()
