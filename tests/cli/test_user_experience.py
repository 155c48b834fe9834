#!/usr/bin/python3
"""What a user sees when something goes wrong around a run: outputs that cannot be written are
refused before any work, with the system's reason; an interrupted command (Ctrl-C, kill) leaves
no unfinished file behind and exits 130 or 143 with one line."""
import glob
import os
import shutil
import signal
import subprocess
import time
import unittest

from npusim_cli import NPUSIM, NpusimTestCase, example, tree

USAGE = 2


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


if __name__ == "__main__":
    unittest.main()
