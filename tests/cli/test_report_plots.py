#!/usr/bin/python3
"""The report's plots show what is true at any size: the timeline's data (timeline.json) counts
every event (the busy fraction it draws per unit matches report.json's utilisation on a run of
more slices than the old sampled timeline drew), starts at 0 and carries the ops' spans; the
ops table says what its intensity means, that op spans overlap, and gives no efficiency to an op
without commands."""
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
        self.timeline = json.loads((self.tmp / "rep" / "timeline.json").read_text())
        self.trace = json.loads((self.tmp / "rep" / "trace.json").read_text())["traceEvents"]

    def test_every_event_counts_and_the_busy_fraction_matches_the_utilisation(self):
        slices = [e for e in self.trace if e["ph"] == "X"]
        self.assertGreater(len(slices), 20000, "large enough that the old timeline sampled it")
        run_us = self.report["total_cycles"] / self.report["clock_hz"] * 1e6
        width = self.timeline["bin_us"]
        drawn_units = {unit["name"]: unit for unit in self.timeline["units"]}
        for name, unit in self.report["units"].items():
            with self.subTest(unit=name):
                drawn = drawn_units[name]
                self.assertEqual(len(drawn["busy"]), self.timeline["bins"])
                self.assertAlmostEqual(sum(drawn["busy"]) * width / run_us, unit["utilization"], delta=0.01)
                self.assertLessEqual(max(b + s for b, s in zip(drawn["busy"], drawn["stalled"])), 1.0001)

    def test_time_starts_at_zero_and_covers_the_last_event(self):
        last = max(e["ts"] + e["dur"] for e in self.trace if e["ph"] == "X")
        covered = self.timeline["bins"] * self.timeline["bin_us"]
        self.assertGreaterEqual(covered, last * 0.9999)
        self.assertLess(covered - last, self.timeline["bin_us"] * 1.01)

    def test_the_job_window_is_the_reports_cycles_and_holds_every_op(self):
        start, end = self.timeline["job_start_us"], self.timeline["job_end_us"]
        self.assertGreater(start, 0)
        self.assertAlmostEqual((end - start) * self.report["clock_hz"] / 1e6, self.report["total_cycles"], delta=2)
        for op in self.timeline["ops"]:
            self.assertGreaterEqual(op["start_us"], start - 1e-6)
            self.assertLessEqual(op["end_us"], end + 1e-6)

    def test_the_ops_spans_are_the_ops_of_the_report(self):
        names = {op["name"]: op for op in self.report["ops"]}
        self.assertTrue(self.timeline["ops"])
        for op in self.timeline["ops"]:
            self.assertIn(op["name"], names)
            self.assertLess(op["start_us"], op["end_us"])
            span_cycles = (op["end_us"] - op["start_us"]) * self.report["clock_hz"] / 1e6
            self.assertAlmostEqual(span_cycles, names[op["name"]]["cycles"], delta=2)

    def test_the_plots_draw_from_it(self):
        for plot in plots.PLOTS:
            self.assertGreater((self.tmp / "rep" / "plots" / plot).stat().st_size, 5000, plot)


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

    def test_the_summary_says_which_ops_the_plain_roofline_cannot_bound(self):
        self.ok("run", example("small_cnn.onnx"), "--timing-only", "--report", "rep")
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        free = [op for op in report["ops"] if op["cycles"] > 0 and op["attainable_cycles"] == 0]
        self.assertTrue(free, "small_cnn's pooling has no MACs and no DRAM traffic")
        line = next(line for line in (self.tmp / "rep" / "report.md").read_text().splitlines()
                    if "the plain roofline bounds" in line)
        self.assertIn(f"bounds {sum(op['cycles'] for op in free)} cycles", line)
        for op in free:
            self.assertIn(op["name"], line)


if __name__ == "__main__":
    unittest.main()
