#!/usr/bin/python3
"""The report's plots show what is true at any size: the timeline counts every slice (the busy
fraction it draws per unit matches report.json's utilisation on a run of more slices than the
old sampled timeline drew), starts at 0 and carries the ops' spans; the roofline's intensity is
the ops table's; the ops table says what its intensity means, that op spans overlap, and gives
no efficiency to an op without commands."""
import json
import sys
import unittest
from pathlib import Path

from npusim_cli import NpusimTestCase, example

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "reports"))
import plots  # noqa: E402


class TimelineDataTest(NpusimTestCase):
    def setUp(self):
        super().setUp()
        self.ok("run", example("transformer_block.onnx"), "--timing-only", "--report", "rep")
        self.report = json.loads((self.tmp / "rep" / "report.json").read_text())
        self.tracks, self.slices = plots.read_trace(self.tmp / "rep" / "trace.json")

    def test_every_slice_counts_and_the_busy_fraction_matches_the_utilisation(self):
        self.assertGreater(len(self.slices["start"]), 20000, "large enough that the old timeline sampled it")
        edges, data = plots.timeline_data(self.tracks, self.slices)
        self.assertEqual(edges[0], 0.0)
        width = edges[1] - edges[0]
        run_us = self.report["total_cycles"] / self.report["clock_hz"] * 1e6
        for unit in data.values():
            if unit["name"] not in self.report["units"]:
                continue
            with self.subTest(unit=unit["name"]):
                drawn = unit["busy"].sum() * width / run_us
                self.assertAlmostEqual(drawn, self.report["units"][unit["name"]]["utilization"], delta=0.01)
                self.assertLessEqual(float((unit["busy"] + unit["stalled"]).max()), 1.0 + 1e-6)

    def test_the_ops_spans_are_the_ops_of_the_report(self):
        bands = plots.op_bands(self.report, self.slices)
        names = {op["name"] for op in self.report["ops"]}
        self.assertTrue(bands)
        for start, end, name in bands:
            self.assertIn(name, names)
            self.assertLess(start, end)


class TablesTest(NpusimTestCase):
    def test_the_ops_table_defines_its_intensity_and_says_spans_overlap(self):
        self.ok("run", example("transformer_block.onnx"), "--timing-only", "--report", "rep")
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        markdown = (self.tmp / "rep" / "report.md").read_text()
        self.assertIn("MACs/min byte", markdown)
        self.assertIn("MACs per compulsory DRAM byte", markdown)
        spans = sum(op["cycles"] for op in report["ops"])
        self.assertIn(f"add to {spans} of the run's {report['total_cycles']}", markdown)

    def test_an_op_without_commands_has_no_efficiency(self):
        self.ok("run", example("small_cnn.onnx"), "--timing-only", "--report", "rep")
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        idle = [op["name"] for op in report["ops"] if op["cycles"] == 0]
        self.assertTrue(idle, "the example has fused or view ops")
        rows = {line.split("|")[1].strip(): line for line in (self.tmp / "rep" / "report.md").read_text().splitlines()
                if line.startswith("|")}
        for name in idle:
            self.assertNotIn("0.0%", rows[name])


if __name__ == "__main__":
    unittest.main()
