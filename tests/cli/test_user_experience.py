#!/usr/bin/python3
"""What a user sees around a run: outputs that cannot be written are refused before any work,
with the system's reason; an interrupted command (Ctrl-C, kill) leaves no unfinished file
behind and exits 130 or 143 with one line; messages are short and point where to look; flags
that cannot apply are refused; a modified preset is labelled as such."""
import glob
import json
import os
import pty
import shutil
import signal
import subprocess
import time
import unittest
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from npusim_cli import NPUSIM, NpusimTestCase, example, tree

USAGE = 2
README = Path(__file__).resolve().parents[2] / "README.md"


class OutputsCheckedFirstTest(NpusimTestCase):
    def test_a_report_directory_that_is_a_file_is_refused_before_the_run(self):
        (self.tmp / "f").write_text("x\n")
        line = self.assertFailsCleanly(["run", example("small_cnn.onnx"), "--report", "f"], USAGE,
                                       ["--report", "'f'", "not a directory"])
        self.assertNotIn("cycles", line)

    def test_outputs_in_a_directory_that_takes_no_files_name_the_reason(self):
        # /sys takes no new files, even from root.
        self.assertFailsCleanly(["run", example("small_cnn.onnx"), "--outputs", "/sys/npusim_out"], USAGE,
                                ["--outputs", "/sys", "Permission denied"])
        self.assertFailsCleanly(["compile", example("small_cnn.onnx"), "-o", "/sys/model.npuart"], USAGE,
                                ["-o", "/sys/model.npuart", "Permission denied"])

    def test_an_artifact_path_into_a_missing_directory_or_onto_a_directory_is_refused(self):
        self.assertFailsCleanly(["compile", example("small_cnn.onnx"), "-o", "nodir/model.npuart"], USAGE,
                                ["no directory 'nodir'"])
        self.assertFailsCleanly(["compile", example("small_cnn.onnx"), "-o", "."], USAGE, ["'.' is a directory"])

    def test_a_report_directory_below_missing_ones_is_created(self):
        self.ok("run", example("small_cnn.onnx"), "--report", "a/b/c", "--timing-only")
        self.assertTrue((self.tmp / "a/b/c/report.json").is_file())


class InterruptTest(NpusimTestCase):
    def interrupt_when(self, pattern, args, how=signal.SIGINT, group=False):
        """Starts npusim, sends `how` once a path matching `pattern` exists (to the whole process
        group when `group`, as a terminal's Ctrl-C does); returns (exit code, stderr)."""
        process = subprocess.Popen([NPUSIM, *map(str, args)], cwd=self.tmp, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True,
                                   env={**os.environ, "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE": "1"})
        deadline = time.monotonic() + 120
        sent = False
        while process.poll() is None and time.monotonic() < deadline:
            if glob.glob(str(self.tmp / pattern)):
                (os.killpg if group else os.kill)(process.pid, how)
                sent = True
                break
            time.sleep(0.001)
        _, stderr = process.communicate(timeout=120)
        self.assertTrue(sent, f"{pattern} never appeared: the run ended first")
        return process.returncode, stderr

    def run_args(self):
        return ["run", example("transformer_block.onnx"), "--outputs", "out", "--report", "rep"]

    def assert_interrupted(self, code, stderr, expected_code, word):
        self.assertEqual(code, expected_code, stderr)
        lines = stderr.splitlines()
        self.assertEqual(len(lines), 1, stderr)
        self.assertIn(word, lines[0])
        self.assertEqual([p for p in tree(self.tmp) if ".tmp." in p or p.endswith(".part")], [])

    def test_ctrl_c_while_the_files_are_written_leaves_none(self):
        code, stderr = self.interrupt_when("rep/*.tmp.*", self.run_args())
        self.assert_interrupted(code, stderr, 128 + signal.SIGINT, "interrupted")
        self.assertEqual(tree(self.tmp), [], "the directories made for the outputs stay")

    def test_sigterm_while_the_files_are_written_exits_143(self):
        code, stderr = self.interrupt_when("out/*.tmp.*", self.run_args(), signal.SIGTERM)
        self.assert_interrupted(code, stderr, 128 + signal.SIGTERM, "terminated")

    def test_ctrl_c_while_the_plots_are_drawn_is_an_interruption_not_a_failure(self):
        for group in (False, True):
            with self.subTest(whole_group=group):
                for directory in ("out", "rep"):
                    shutil.rmtree(self.tmp / directory, ignore_errors=True)
                code, stderr = self.interrupt_when("rep/report.json", self.run_args(), group=group)
                self.assert_interrupted(code, stderr, 128 + signal.SIGINT, "interrupted")
                self.assertNotIn("report.html", tree(self.tmp / "rep"))
                self.assertNotIn("KeyboardInterrupt", stderr)


class MessagesTest(NpusimTestCase):
    def custom_op_model(self):
        graph = helper.make_graph(
            [helper.make_node("Relu", ["x"], ["h"], name="act"),
             helper.make_node("Frobnicate", ["h"], ["y"], name="magic", domain="com.example")], "custom",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3])])
        opsets = [helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)]
        onnx.save(helper.make_model(graph, opset_imports=opsets), self.tmp / "custom.onnx")
        return "custom.onnx"

    def test_an_unknown_op_is_named_in_a_short_line_that_points_to_the_mapping(self):
        line = self.assertFailsCleanly(["compile", self.custom_op_model(), "-o", "x.npuart"], USAGE,
                                       ["'magic'", "com.example.Frobnicate", "--mapping"])
        self.assertLess(len(line), 200)

    def test_the_mapping_of_a_model_that_does_not_import_lists_its_ops_and_what_runs(self):
        result = self.npusim("compile", self.custom_op_model(), "--mapping")
        self.assertEqual(result.returncode, USAGE, result.stderr)
        rows = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
        self.assertIn("unsupported", rows["magic"])
        self.assertIn("no such op", rows["magic"])
        self.assertNotIn("unsupported", rows["act"])
        self.assertIn("npusim runs these ONNX ops:", result.stdout)
        self.assertIn("Conv", result.stdout.splitlines()[-1])

    def test_an_unknown_arch_field_lists_the_fields_beside_it(self):
        self.assertFailsCleanly(["arch", "show", "edge", "--set", "nosuch.field=1"], USAGE,
                                ["'nosuch'", "top-level fields", "tensor", "sram", "dram"])
        self.assertFailsCleanly(["arch", "show", "edge", "--set", "tensor.rowz=1"], USAGE,
                                ["'tensor.rowz'", "fields of tensor", "rows", "cols"])

    def test_an_npy_of_another_element_type_names_the_expected_one(self):
        (self.tmp / "in").mkdir()
        np.save(self.tmp / "in" / "x.npy", np.zeros((64, 256)))
        self.ok("compile", example("mlp.onnx"), "-o", "mlp.npuart")
        self.assertFailsCleanly(["run", "mlp.npuart", "--inputs", "in"], USAGE, ["'<f8'", "expected fp32", "'<f4'"])

    def test_a_file_that_cannot_be_read_says_why(self):
        self.assertFailsCleanly(["run", "missing.onnx"], USAGE, ["'missing.onnx'", "no such file"])
        (self.tmp / "dir.onnx").mkdir()
        self.assertFailsCleanly(["compile", "dir.onnx", "-o", "x.npuart"], USAGE, ["'dir.onnx'", "is a directory"])
        self.assertFailsCleanly(["run", "dir.onnx"], USAGE, ["'dir.onnx'", "is a directory"])


class ConventionsTest(NpusimTestCase):
    def test_version(self):
        result = self.assertSucceeded(self.npusim("--version"))
        self.assertRegex(result.stdout.strip(), r"^npusim \d+\.\d+\.\d+$")

    def test_compiler_flags_on_an_artifact_are_refused_not_ignored(self):
        self.ok("compile", example("mlp.onnx"), "-o", "mlp.npuart")
        for flag in (["--no-fusion"], ["--no-loops"], ["--cost-params", "params.json"]):
            with self.subTest(flag=flag[0]):
                self.assertFailsCleanly(["run", "mlp.npuart", *flag], USAGE, [flag[0], "'mlp.npuart'", "recompile"])

    def test_a_modified_preset_is_labelled_by_its_changes_everywhere(self):
        shown = json.loads(self.ok("arch", "show", "edge", "--set", "tensor.rows=32"))
        self.assertEqual(shown["name"], "edge+tensor.rows=32")
        self.assertIn("32x16 systolic array", shown["description"])
        self.assertNotIn("16x16", shown["description"])
        stdout = self.ok("run", example("mlp.onnx"), "--set", "tensor.rows=32", "--timing-only", "--report", "rep")
        self.assertIn("mlp on edge+tensor.rows=32:", stdout)
        self.assertEqual(json.loads((self.tmp / "rep" / "report.json").read_text())["arch"], "edge+tensor.rows=32")

    def test_the_readme_names_every_preset_where_it_lists_them(self):
        presets = [line.split()[0] for line in self.ok("arch", "list").splitlines()]
        line = next(line for line in README.read_text().splitlines() if "npusim arch list" in line)
        for preset in presets:
            self.assertIn(preset, line)

    def test_a_run_says_where_its_outputs_went(self):
        stdout = self.ok("run", example("mlp.onnx"), "--outputs", "out")
        self.assertIn("outputs: out/ (logits.npy)", stdout)


class CountsAgreeTest(NpusimTestCase):
    def report(self, directory, *flags):
        self.ok("run", example("mlp.onnx"), "--timing-only", "--report", directory, *flags)
        return json.loads((self.tmp / directory / "report.json").read_text())

    def test_a_retried_job_counts_its_failed_attempt_in_cycles_as_in_bytes(self):
        clean, faulted = self.report("clean"), self.report("faulted", "--inject", "dma_error@3")
        self.assertGreater(faulted["dram"]["bytes_read"], clean["dram"]["bytes_read"])
        self.assertGreater(faulted["total_cycles"], clean["total_cycles"])
        self.assertLessEqual(faulted["dram"]["achieved_gbps"], clean["dram"]["achieved_gbps"] * 1.001)

    def test_command_buffer_fetches_are_named_and_belong_to_no_op(self):
        self.report("rep")
        trace = json.loads((self.tmp / "rep" / "trace.json").read_text())
        fetches = [e for e in trace["traceEvents"] if e.get("cat") == "command_fetch"]
        self.assertGreater(len(fetches), 0)
        for event in fetches:
            self.assertEqual(event["name"], "command buffer fetch")
            self.assertIsNone(event["args"]["op_id"])
            self.assertGreater(event["args"]["bytes"], 0)
        # "job end" is the job's End command alone: it moves nothing.
        for event in trace["traceEvents"]:
            if event.get("name") == "job end":
                self.assertEqual(event["args"]["bytes"], 0)


class ProgressTest(NpusimTestCase):
    def test_a_long_run_on_a_terminal_shows_its_progress_then_erases_it(self):
        # 42 runs of the block: several seconds of simulation on any machine npusim targets.
        master, slave = pty.openpty()
        process = subprocess.Popen([NPUSIM, "run", example("transformer_block.onnx"), "--timing-only", "--repeat", "40"],
                                   cwd=self.tmp, stdout=subprocess.DEVNULL, stderr=slave,
                                   env={**os.environ, "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE": "1"})
        os.close(slave)
        shown = b""
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the terminal closes with the process
                break
            if not data:
                break
            shown += data
        os.close(master)
        self.assertEqual(process.wait(timeout=300), 0)
        text = shown.decode()
        self.assertRegex(text, r"simulating: \d+ of \d+ commands \(\d+%\), \d+ s")
        self.assertTrue(text.endswith("\r\x1b[K"), "the line is erased when the run ends")


if __name__ == "__main__":
    unittest.main()
