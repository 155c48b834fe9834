#!/usr/bin/python3
"""Memory and layout decisions are visible: an intermediate that does not fit on chip is
spilled with spill commands and a spill finding at the op, one that fits stays on chip; a
convolution whose layout differs from its reader's gets a Reformat op and a reformat finding;
weights that DRAM cannot hold beside the activations are streamed in phases, with a
weight_streaming finding at each op that reads one first."""
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


class WeightStreamingTest(NpusimTestCase):
    # transformer_block's 8.1 MiB of weights and 6 MiB of activations on edge with 12 MiB of
    # DRAM: the weights stream in phases.
    SMALL_DRAM = ("--arch", "edge", "--set", "dram.size_mib=12")

    def test_the_memory_plan_shows_the_phases(self):
        memory = self.ok("compile", example("transformer_block.onnx"), *self.SMALL_DRAM, "--emit", "mem")
        self.assertRegex(memory.splitlines()[0], r"^memory.plan dram_window=\d+ streamed_weights=\d+ \{$")
        self.assertGreaterEqual(len(re.findall(r"^  phase from op \d+: uploads \d+ weights", memory, re.M)), 2)

    def uploaded_bytes(self):
        """Compiles for the small DRAM; returns the bytes the artifact's segments upload."""
        self.ok("compile", example("transformer_block.onnx"), *self.SMALL_DRAM, "-o", "small.npuart")
        manifest = json.loads(self.ok("inspect", "small.npuart", "--json"))
        self.assertLessEqual(manifest["dram_bytes"], 12 << 20)
        uploads = [u for s in manifest["segments"] for u in s["uploads"]]
        self.assertGreater(len([s for s in manifest["segments"] if s["uploads"]]), 1)
        self.assertIn("after uploading", self.ok("inspect", "small.npuart"))
        return sum(u["bytes"] for u in uploads)

    def test_streamed_weights_compute_the_same_and_cost_their_upload(self):
        uploaded = self.uploaded_bytes()
        stdout = self.ok("run", example("transformer_block.onnx"), *self.SMALL_DRAM, "--check", "--report", "small")
        self.assertIn("check against the reference interpreter: passed", stdout)
        small = json.loads((self.tmp / "small" / "report.json").read_text())
        self.ok("run", example("transformer_block.onnx"), "--arch", "edge", "--report", "large")
        large = json.loads((self.tmp / "large" / "report.json").read_text())
        upload_cycles = sum(op["host"]["weight_upload_cycles"] for op in small["ops"])
        self.assertEqual(sum(op["host"]["weight_upload_bytes"] for op in small["ops"]), uploaded)
        self.assertGreater(upload_cycles, 0)
        self.assertGreater(small["total_cycles"], large["total_cycles"])
        self.assertTrue(all(op["host"]["weight_upload_cycles"] == 0 for op in large["ops"]))
        streaming = [f for f in small["findings"] if f["kind"] == "weight_streaming"]
        self.assertEqual(sum(f["cycles_lost"] for f in streaming), upload_cycles)
        self.assertTrue(all("dram.size_mib" in f["hint"] for f in streaming))
        # A timing-only run uploads the weights for their time alone: the same cycles.
        self.ok("run", example("transformer_block.onnx"), *self.SMALL_DRAM, "--timing-only", "--report", "timing")
        timing = json.loads((self.tmp / "timing" / "report.json").read_text())
        self.assertEqual(timing["total_cycles"], small["total_cycles"])
        self.assertEqual(sum(op["host"]["weight_upload_cycles"] for op in timing["ops"]), upload_cycles)


if __name__ == "__main__":
    unittest.main(verbosity=2)
