#!/usr/bin/python3
"""Memory and layout decisions are visible: an intermediate that does not fit on chip is
spilled with spill commands and a spill finding at the op, one that fits stays on chip; a
convolution whose layout differs from its reader's gets a Reformat op and a reformat finding."""
import json
import re
import unittest
from collections import Counter

from npusim_cli import NpusimTestCase, example

# x[256,1024] -> MatMul(1024x1024) "up" -> Relu "act" -> MatMul(1024x256) "down": the 1 MiB
# hidden activation is larger than tiny's 32 KiB SRAM and fits in server's 24 MiB.
WIDE_MLP = "wide_mlp.onnx"
HIDDEN_BYTES = 256 * 1024 * 4


class SpillTest(NpusimTestCase):
    def command_kinds(self, arch):
        isa = self.ok("compile", example(WIDE_MLP), "--arch", arch, "--emit", "isa")
        return Counter(re.search(r"kind=(\w+)", line).group(1) for line in isa.splitlines())

    def run_report(self, arch):
        stdout = self.ok("run", example(WIDE_MLP), "--arch", arch, "--check", "--report", "rep")
        self.assertIn("check against the reference interpreter: passed", stdout)
        return json.loads((self.tmp / "rep" / "report.json").read_text())

    def test_tiny_spills_the_hidden_activation_and_names_the_ops(self):
        self.assertGreater(self.command_kinds("tiny")["spill"], 0)
        report = self.run_report("tiny")
        ops = {op["name"]: op for op in report["ops"]}
        # "up" (with the Relu fused on its accumulator) stores the activation once; "down"
        # reloads it.
        self.assertEqual(ops["up"]["spill"]["bytes"], HIDDEN_BYTES)
        self.assertGreaterEqual(ops["down"]["spill"]["bytes"], HIDDEN_BYTES)
        spills = [f for f in report["findings"] if f["kind"] == "spill"]
        self.assertEqual(sorted(f["op"] for f in spills), ["down", "up"])
        for finding in spills:
            self.assertGreater(finding["cycles_lost"], 0)
            self.assertIn("h_relu", finding["message"])
            self.assertIn("h_relu", finding["hint"])
        self.assertEqual([f["cycles_lost"] for f in report["findings"]],
                         sorted((f["cycles_lost"] for f in report["findings"]), reverse=True))
        markdown = (self.tmp / "rep" / "report.md").read_text()
        self.assertIn("## Top findings", markdown)

    def test_server_keeps_the_hidden_activation_on_chip(self):
        self.assertEqual(self.command_kinds("server")["spill"], 0)
        memory = self.ok("compile", example(WIDE_MLP), "--arch", "server", "--emit", "mem")
        self.assertRegex(memory, r"sram %h_relu intermediate")
        report = self.run_report("server")
        self.assertEqual([f for f in report["findings"] if f["kind"] in ("spill", "memory_bound")], [])
        self.assertTrue(all(op["spill"]["count"] == 0 for op in report["ops"]))
        # The ops' DMAs move the weights, the input and the output through DRAM once each:
        # the activation never leaves the chip.
        compulsory = (1024 * 1024 + 1024 * 256 + 256 * 1024 + 256 * 256) * 4
        self.assertEqual(sum(op["dram_bytes"] for op in report["ops"]), compulsory)
        self.assertEqual(report["dram"]["bytes_written"], 256 * 256 * 4)


class ReformatTest(NpusimTestCase):
    def test_conv_flatten_gemm_gets_a_reformat_op_and_finding(self):
        model = example("batched_conv_classifier.onnx")
        graph = self.ok("compile", model, "--emit", "graph")
        reformats = [line for line in graph.splitlines() if "npusim.Reformat(" in line]
        self.assertEqual(len(reformats), 1, graph)
        self.assertIn('from = "CNHW"', reformats[0])
        self.assertIn('to = "NCHW"', reformats[0])
        self.assertRegex(graph, r"Flatten\(%r\)")  # the Flatten reads the Reformat's result
        isa = self.ok("compile", model, "--emit", "isa")
        self.assertIn("kind=reformat", isa)
        stdout = self.ok("run", model, "--check", "--report", "rep")
        self.assertIn("check against the reference interpreter: passed", stdout)
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        findings = [f for f in report["findings"] if f["kind"] == "reformat"]
        self.assertEqual(len(findings), 1, report["findings"])
        self.assertEqual(findings[0]["op"], "relu.reformat")
        self.assertIn("CNHW -> NCHW", findings[0]["message"])
        self.assertGreater(findings[0]["cycles_lost"], 0)
        ops = {op["name"]: op for op in report["ops"]}
        self.assertGreater(ops["relu.reformat"]["reformat"]["count"], 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
