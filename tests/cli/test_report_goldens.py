#!/usr/bin/python3
"""The example models' report.json on `edge` and `server` stay what they were when the goldens
in golden_reports/ were written: a refactoring of the run, the timing core, the report builder
or the layers under them must not change a figure. Timing-only runs must match the same
goldens (only their `timing_only` flag differs): skipping the values never moves a cycle. Host
wall-clock seconds are left out (they vary run to run).

A change that means to alter the reports rewrites the goldens with NPUSIM_UPDATE_GOLDENS=1 and
says why in its commit."""
import json
import os
import unittest
from pathlib import Path

from npusim_cli import NpusimTestCase, example

GOLDENS = Path(__file__).resolve().parent / "golden_reports"
PRESETS = ("edge", "server")
MODELS = sorted(path.name.split(".")[0] for path in GOLDENS.glob("*.edge.json"))


def without_host_seconds(value):
    if isinstance(value, dict):
        return {k: without_host_seconds(v) for k, v in value.items() if k != "host_seconds"}
    if isinstance(value, list):
        return [without_host_seconds(v) for v in value]
    return value


class ReportGoldenTest(NpusimTestCase):
    def report(self, model, preset, *flags):
        report_dir = self.tmp / f"{model}.{preset}{''.join(flags)}"
        self.ok("run", example(f"{model}.onnx"), "--arch", preset, "--report", report_dir, *flags)
        return without_host_seconds(json.loads((report_dir / "report.json").read_text()))

    def test_every_example_has_a_golden_on_every_preset(self):
        self.assertGreaterEqual(len(MODELS), 9, MODELS)
        for preset in PRESETS:
            for model in MODELS:
                self.assertTrue((GOLDENS / f"{model}.{preset}.json").is_file(), f"{model}.{preset}")

    def test_reports_match_their_goldens(self):
        for preset in PRESETS:
            for model in MODELS:
                with self.subTest(model=model, preset=preset):
                    report = self.report(model, preset)
                    golden = GOLDENS / f"{model}.{preset}.json"
                    if os.environ.get("NPUSIM_UPDATE_GOLDENS") == "1":
                        golden.write_text(json.dumps(report, indent=1, sort_keys=True))
                    self.assertEqual(report, json.loads(golden.read_text()))

    def test_timing_only_reports_match_the_same_goldens(self):
        for preset in PRESETS:
            for model in MODELS:
                with self.subTest(model=model, preset=preset):
                    report = self.report(model, preset, "--timing-only")
                    self.assertTrue(report["timing_only"])
                    golden = json.loads((GOLDENS / f"{model}.{preset}.json").read_text())
                    golden["timing_only"] = True
                    self.assertEqual(report, golden)

    def test_timing_only_runs_of_compiled_artifacts_match_the_same_goldens(self):
        # A timing-only run of an artifact file leaves its weights in the file (their upload
        # only takes its time): the figures are those of the full run all the same.
        for model in MODELS:
            with self.subTest(model=model):
                artifact = self.tmp / f"{model}.npuart"
                self.ok("compile", example(f"{model}.onnx"), "--arch", "edge", "-o", artifact)
                report_dir = self.tmp / f"{model}.artifact"
                self.ok("run", artifact, "--timing-only", "--report", report_dir)
                report = without_host_seconds(json.loads((report_dir / "report.json").read_text()))
                golden = json.loads((GOLDENS / f"{model}.edge.json").read_text())
                golden["timing_only"] = True
                self.assertEqual(report, golden)


if __name__ == "__main__":
    unittest.main(verbosity=2)
