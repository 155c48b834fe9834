#!/usr/bin/python3
"""report.json follows docs/report.schema.json: reports of runs with every optional part (a
reference check, cold/warm/steady timing, a shape bucket, CPU segments, RTL blocks, findings)
validate, and the schema rejects a report that drifts from it. (Every other CLI test also
validates each report it makes, in NpusimTestCase's cleanup.)"""
import json
import unittest

from npusim_cli import NpusimTestCase, example, report_schema_errors


class ReportSchemaTest(NpusimTestCase):
    def report(self, *args):
        self.ok("run", *args, "--report", "rep")
        return json.loads((self.tmp / "rep" / "report.json").read_text())

    def test_reports_with_every_optional_part_follow_the_schema(self):
        runs = {
            "check and timing": [example("mlp.onnx"), "--check", "--repeat", "2"],
            "cpu segments": [example("sampling_head.onnx")],
            "rtl blocks": [example("small_cnn_int8.onnx"), "--rtl", "tensor,vector"],
            "spill findings": [example("wide_mlp.onnx"), "--arch", "tiny", "--timing-only"],
        }
        for name, args in runs.items():
            with self.subTest(run=name):
                report = self.report(*args)
                self.assertEqual(report_schema_errors(report), [])

    def test_the_schema_rejects_drift(self):
        report = self.report(example("matmul_fp32.onnx"))
        broken = dict(report, surprise=1)
        self.assertTrue(any("surprise" in e for e in report_schema_errors(broken)))
        del broken["surprise"]
        broken["ops"] = [dict(report["ops"][0], bound="lucky")]
        self.assertTrue(any("ops/0/bound" in e for e in report_schema_errors(broken)))
        broken = dict(report, findings=[{"kind": "spill", "op": "x", "op_id": 0, "cycles_lost": -1,
                                          "message": "m", "hint": "h"}])
        self.assertTrue(any("findings/0/cycles_lost" in e for e in report_schema_errors(broken)))


if __name__ == "__main__":
    unittest.main()
