"""The readable reports and the tools around a run directory: report.html rendered by a real
browser (headless Chromium), `npusim report RUN_DIR` rebuilding it, `npusim diff RUN_A RUN_B`,
the per-op roofline and the SRAM occupancy counter."""
import json
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from npusim_cli import NpusimTestCase, example  # noqa: E402

# The colour the plots draw busy time and op bars in (reports/plots.py); the page's own styles
# never use it, so its pixels in a screenshot are the embedded plots, decoded and drawn.
PLOT_BLUE = (0x30, 0x70, 0xc0)


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise AssertionError("chromium is not installed (scripts/setup.sh installs it)")


class ReportPageTest(NpusimTestCase):
    def setUp(self):
        super().setUp()
        self.ok("run", example("small_cnn.onnx"), "--report", "rep")
        self.page = self.tmp / "rep" / "report.html"

    def browser(self, *args):
        profile = self.tmp / "chromium-profile"
        result = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                 f"--user-data-dir={profile}", *args, self.page.as_uri()],
                                capture_output=True, text=True, timeout=120, cwd=self.tmp)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result

    def test_report_html_renders_its_tables_and_plots_in_chromium(self):
        # The DOM as the browser parsed it: every section and table is there, with the ops.
        dom = self.browser("--dump-dom").stdout
        for section in ("summary", "findings", "units", "stalls", "stalled-ops", "ops"):
            self.assertIn(f'<section id="{section}">', dom)
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        for op in report["ops"]:
            self.assertIn(f"<td>{op['name']}</td>", dom)
        for plot in ("timeline", "utilization", "op_cycles", "roofline"):
            self.assertRegex(dom, f'<figure id="plot-{plot}"><img [^>]*src="data:image/png;base64,')
        self.assertNotRegex(dom, r'src="(https?:|file:|//)')  # self-contained: nothing to fetch

        # The page as drawn: a PNG whose pixels include the plots' colour in quantity (an image
        # that failed to decode draws as a small broken-image icon instead).
        import numpy as np
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.image
        self.browser("--window-size=1400,5000", f"--screenshot={self.tmp / 'page.png'}")
        pixels = (matplotlib.image.imread(self.tmp / "page.png")[:, :, :3] * 255).round().astype(int)
        blue = np.all(np.abs(pixels - np.array(PLOT_BLUE)) <= 2, axis=2)
        self.assertGreater(blue.sum(), 20000, "the screenshot shows no plots")
        rows_with_blue = np.flatnonzero(blue.any(axis=1))
        self.assertGreater(rows_with_blue.max() - rows_with_blue.min(), 1000, "plots do not span the page")


class ReportRebuildTest(NpusimTestCase):
    def test_report_rebuilds_readable_files_from_report_and_trace(self):
        self.ok("run", example("mlp.onnx"), "--report", "rep")
        rep = self.tmp / "rep"
        markdown = (rep / "report.md").read_text()
        html = (rep / "report.html").read_text()
        for name in ("report.md", "report.html"):
            (rep / name).unlink()
        shutil.rmtree(rep / "plots")
        out = self.ok("report", "rep")
        self.assertIn("report.html", out)
        self.assertEqual((rep / "report.md").read_text(), markdown)
        self.assertEqual((rep / "report.html").read_text(), html)
        self.assertEqual(sorted(p.name for p in (rep / "plots").iterdir()),
                         ["op_cycles.png", "roofline.png", "timeline.png", "utilization.png"])

    def test_report_refuses_what_is_not_a_run_directory(self):
        self.assertFailsCleanly(["report", "missing"], 2, ["missing", "not a directory"])
        (self.tmp / "empty").mkdir()
        self.assertFailsCleanly(["report", "empty"], 2, ["empty", "report.json"])
        self.ok("run", example("mlp.onnx"), "--report", "rep")
        (self.tmp / "rep" / "timeline.json").write_text("{ not json")
        self.assertFailsCleanly(["report", "rep"], 2, ["plots", "timeline.json"])
        (self.tmp / "rep" / "trace.json").unlink()
        self.assertFailsCleanly(["report", "rep"], 2, ["trace.json"])
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        del report["ops"][0]["cycles"]
        (self.tmp / "rep" / "report.json").write_text(json.dumps(report))
        self.assertFailsCleanly(["report", "rep"], 2, ["report.json", "cycles"])
        shutil.rmtree(self.tmp / "rep")  # broken on purpose: not for the schema check


class ReportDiffTest(NpusimTestCase):
    def run_on(self, arch):
        self.ok("run", example("small_cnn.onnx"), "--arch", arch, "--report", arch)
        return json.loads((self.tmp / arch / "report.json").read_text())

    def test_diff_names_what_changed_op_by_op(self):
        edge, mobile = self.run_on("edge"), self.run_on("mobile")
        diff = json.loads(self.ok("diff", "edge", "mobile/report.json", "--json"))
        self.assertEqual(diff["a"]["arch"], "edge")
        self.assertEqual(diff["b"]["arch"], "mobile")
        self.assertEqual(diff["total_cycles_change"], mobile["total_cycles"] - edge["total_cycles"])
        cycles_a = {op["name"]: op["cycles"] for op in edge["ops"]}
        cycles_b = {op["name"]: op["cycles"] for op in mobile["ops"]}
        self.assertEqual({op["op"]: op["cycles_a"] for op in diff["ops"]}, cycles_a)
        self.assertEqual({op["op"]: op["cycles_b"] for op in diff["ops"]}, cycles_b)
        changes = [abs(op["change"]) for op in diff["ops"]]
        self.assertEqual(changes, sorted(changes, reverse=True))
        lost_a = {(f["kind"], f["op"]): f["cycles_lost"] for f in edge["findings"]}
        lost_b = {(f["kind"], f["op"]): f["cycles_lost"] for f in mobile["findings"]}
        changed = {key for key in lost_a.keys() | lost_b.keys() if lost_a.get(key) != lost_b.get(key)}
        self.assertEqual({(f["kind"], f["op"]) for f in diff["findings"]}, changed)

        text = self.ok("diff", "edge", "mobile")
        biggest = diff["ops"][0]
        self.assertRegex(text, rf"{re.escape(biggest['op'])}\s+\S+\s+{biggest['cycles_a']}\s+{biggest['cycles_b']}\s+{biggest['change']:+d}")
        self.assertIn(f"total cycles: {edge['total_cycles']} -> {mobile['total_cycles']}", text)

    def test_a_run_against_itself_differs_nowhere(self):
        self.run_on("edge")
        diff = json.loads(self.ok("diff", "edge", "edge", "--json"))
        self.assertEqual(diff["total_cycles_change"], 0)
        self.assertTrue(all(op["change"] == 0 for op in diff["ops"]))
        self.assertEqual(diff["findings"], [])
        self.assertIn("ops unchanged", self.ok("diff", "edge", "edge"))

    def test_diff_refuses_a_missing_run(self):
        self.run_on("edge")
        self.assertFailsCleanly(["diff", "edge", "nowhere"], 2, ["nowhere"])


class RooflineAndOccupancyTest(NpusimTestCase):
    def test_each_op_has_its_roofline_and_the_trace_its_sram_occupancy(self):
        self.ok("run", example("small_cnn.onnx"), "--report", "rep")
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        bandwidth = report["roofline"]["dram_bytes_per_cycle"]
        for op in report["ops"]:
            with self.subTest(op=op["name"]):
                if op["macs"] > 0:
                    self.assertGreater(op["peak_macs_per_cycle"], 0)
                    self.assertAlmostEqual(op["intensity"], op["macs"] / op["min_dram_bytes"], places=6)
                    compute = op["macs"] / op["peak_macs_per_cycle"]
                else:
                    self.assertEqual(op["peak_macs_per_cycle"], 0)
                    compute = 0
                self.assertAlmostEqual(op["attainable_cycles"], max(compute, op["min_dram_bytes"] / bandwidth), places=3)
                if op["cycles"] > 0:
                    self.assertAlmostEqual(op["efficiency"], op["attainable_cycles"] / op["cycles"], places=6)
                else:
                    self.assertEqual(op["bound"], "none")

        trace = json.loads((self.tmp / "rep" / "trace.json").read_text())["traceEvents"]
        counter = [e for e in trace if e["ph"] == "C" and e["name"] == "SRAM occupancy"]
        timestamps = [e["ts"] for e in counter]
        self.assertEqual(timestamps, sorted(timestamps))
        self.assertEqual(counter[-1]["args"]["bytes"], 0)
        # Each op that ran sets the counter to its planned occupancy, within the SRAM's size.
        ran = [op for op in report["ops"] if op["cycles"] > 0]
        self.assertEqual(sorted(e["args"]["bytes"] for e in counter[:-1]), sorted(op["sram_bytes"] for op in ran))
        self.assertGreater(max(op["sram_bytes"] for op in ran), 0)
        self.assertLessEqual(max(op["sram_bytes"] for op in report["ops"]), 1 << 20)  # edge: 1 MiB of SRAM


if __name__ == "__main__":
    unittest.main()
