"""Shared helpers for the npusim command-line tests: where things are, how to run npusim.

The tests get their paths from the environment (set by tests/cli/CMakeLists.txt):
    NPUSIM           the npusim executable
    NPUSIM_EXAMPLES  the directory holding the generated example models
"""
import json
import os
import re
import struct
import subprocess
import tempfile
import unittest
from pathlib import Path

ONNX_NODE_TESTS = Path("/usr/share/libonnx-testdata/data/node")
TIMEOUT_SECONDS = 120

# Built with AddressSanitizer (scripts/test.sh --sanitize), a process warns once when an
# exception leaves SystemC's coroutine stacks (tests/support/asan_suppressions.txt): not npusim's
# output. Its reports are not filtered.
SANITIZER_COROUTINE_WARNING = re.compile(
    r"^==\d+==WARNING: ASan is ignoring requested __asan_handle_no_return.*\n"
    r"False positive error reports may follow\n"
    r"For details see https://github.com/google/sanitizers/issues/189\n", re.M)
# Markers of a crash or an uncaught exception rather than a diagnosed error.
CRASH_MARKERS = ("terminate", "Segmentation", "internal error", "Aborted", "core dumped")


def _required_env(name):
    value = os.environ.get(name)
    if not value:
        raise SystemExit(f"{name} is not set; run these tests through ctest")
    return value


NPUSIM = _required_env("NPUSIM")
EXAMPLES = Path(_required_env("NPUSIM_EXAMPLES"))
REPORT_SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "report.schema.json"


def report_schema_errors(report):
    """Every way a report.json (parsed) breaks docs/report.schema.json, as messages."""
    import jsonschema  # Debian's python3-jsonschema
    schema = json.loads(REPORT_SCHEMA.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validator.iter_errors(report)]


def example(name):
    """Path of a generated example model, e.g. example("matmul_fp32.onnx")."""
    path = EXAMPLES / name
    if not path.is_file():
        raise FileNotFoundError(f"example model {path} is missing; build the example_models target")
    return path


def read_manifest(artifact_bytes):
    """The manifest JSON of an artifact and the file offset where its section payload starts.

    Layout: 8-byte magic, u32 format version, u32 manifest crc32, u64 manifest size, manifest
    text, then the sections (offsets relative to the payload start, which ends the file).
    """
    (manifest_size,) = struct.unpack_from("<Q", artifact_bytes, 16)
    manifest = json.loads(artifact_bytes[24:24 + manifest_size])
    last = max(manifest["sections"], key=lambda s: s["offset"])
    payload_start = len(artifact_bytes) - (last["offset"] + last["size"])
    return manifest, payload_start


def tree(directory):
    """Every path under a directory, relative to it (to see what a command left behind)."""
    return sorted(str(p.relative_to(directory)) for p in Path(directory).rglob("*"))


class NpusimTestCase(unittest.TestCase):
    """Each test gets a fresh temporary directory (self.tmp) that npusim runs in."""

    def setUp(self):
        directory = tempfile.TemporaryDirectory(prefix="npusim_cli_")
        self.addCleanup(directory.cleanup)
        self.tmp = Path(directory.name)
        # Every report a test made must follow the schema (checked before the directory goes).
        self.addCleanup(self.check_reports_follow_the_schema)

    def check_reports_follow_the_schema(self):
        for path in sorted(self.tmp.rglob("report.json")):
            errors = report_schema_errors(json.loads(path.read_text()))
            self.assertEqual(errors, [], f"{path.relative_to(self.tmp)} breaks docs/report.schema.json")

    def npusim(self, *args):
        """Runs npusim with the given arguments in self.tmp; returns the CompletedProcess."""
        result = subprocess.run([NPUSIM, *map(str, args)], cwd=self.tmp, capture_output=True, text=True,
                                timeout=TIMEOUT_SECONDS,
                                env={**os.environ, "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE": "1"})
        result.stderr = SANITIZER_COROUTINE_WARNING.sub("", result.stderr)
        return result

    def assertNoCrash(self, result):
        self.assertGreaterEqual(result.returncode, 0, f"npusim died from a signal:\n{result.stderr}")
        for marker in CRASH_MARKERS:
            self.assertNotIn(marker, result.stderr + result.stdout)

    def assertSucceeded(self, result):
        self.assertNoCrash(result)
        self.assertEqual(result.returncode, 0, f"npusim failed:\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        return result

    def ok(self, *args):
        """Runs npusim and asserts it succeeded; returns its stdout."""
        return self.assertSucceeded(self.npusim(*args)).stdout

    def assertFailsCleanly(self, args, exit_code, words):
        """Runs npusim, expecting exit_code, ONE stderr line holding every word in `words`, and no
        file or directory left behind in self.tmp (no partial artifact, outputs or report)."""
        before = tree(self.tmp)
        result = self.npusim(*args)
        self.assertNoCrash(result)
        self.assertEqual(result.returncode, exit_code,
                         f"npusim {' '.join(map(str, args))}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"expected one stderr line, got:\n{result.stderr}")
        prefix = "npusim: error:" if exit_code == 2 else "npusim: run failed:"
        self.assertTrue(lines[0].startswith(prefix), lines[0])
        for word in words:
            self.assertIn(str(word), lines[0])
        self.assertEqual(tree(self.tmp), before, "npusim left files behind after failing")
        return lines[0]
