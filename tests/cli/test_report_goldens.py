#!/usr/bin/python3
"""The example models' report.json on `edge` stay what they were when the goldens in
golden_reports/ were written: a refactoring of the run, the report builder or the layers under
them must not change a figure. Host wall-clock seconds are left out (they vary run to run).

A change that means to alter the reports rewrites the goldens with NPUSIM_UPDATE_GOLDENS=1 and
says why in its commit."""
import json
import os
import unittest
from pathlib import Path

from npusim_cli import NpusimTestCase, example

GOLDENS = Path(__file__).resolve().parent / "golden_reports"
MODELS = sorted(path.name.split(".")[0] for path in GOLDENS.glob("*.edge.json"))


def without_host_seconds(value):
    if isinstance(value, dict):
        return {k: without_host_seconds(v) for k, v in value.items() if k != "host_seconds"}
    if isinstance(value, list):
        return [without_host_seconds(v) for v in value]
    return value


class ReportGoldenTest(NpusimTestCase):
    def test_every_example_has_a_golden(self):
        self.assertGreaterEqual(len(MODELS), 9, MODELS)

    def test_reports_match_their_goldens(self):
        for model in MODELS:
            with self.subTest(model=model):
                report_dir = self.tmp / model
                self.ok("run", example(f"{model}.onnx"), "--arch", "edge", "--report", report_dir)
                report = without_host_seconds(json.loads((report_dir / "report.json").read_text()))
                golden = GOLDENS / f"{model}.edge.json"
                if os.environ.get("NPUSIM_UPDATE_GOLDENS") == "1":
                    golden.write_text(json.dumps(report, indent=1, sort_keys=True))
                self.assertEqual(report, json.loads(golden.read_text()))


if __name__ == "__main__":
    unittest.main(verbosity=2)
