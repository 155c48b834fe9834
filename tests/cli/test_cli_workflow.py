#!/usr/bin/python3
"""npusim happy paths: arch list/show, compile, --emit, disasm, run with inputs/outputs/report."""
import hashlib
import json
import re
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

from npusim_cli import NpusimTestCase, example, read_manifest

# "   12  gemm kind=compute op=0 ..." as disasm prints it.
DISASM_LINE = re.compile(r"^\s*(\d+)\s+([a-z][a-z0-9_.]*)(\s.*)?$")


def initializer(model_path, name):
    model = onnx.load(model_path)
    return next(numpy_helper.to_array(t) for t in model.graph.initializer if t.name == name)


class ArchCommandTest(NpusimTestCase):
    def show(self, *args):
        return json.loads(self.ok("arch", "show", *args))

    def test_arch_list_names_edge_mobile_and_server(self):
        presets = {line.split("\t")[0] for line in self.ok("arch", "list").splitlines()}
        self.assertLessEqual({"edge", "mobile", "server"}, presets)

    def test_arch_show_prints_each_preset_as_json(self):
        for preset in ("edge", "mobile", "server"):
            with self.subTest(preset=preset):
                config = self.show(preset)
                self.assertEqual(config["name"], preset)
                self.assertGreater(config["tensor"]["rows"], 0)
                self.assertGreater(config["sram"]["size_kib"], 0)

    def test_arch_show_with_set_changes_only_that_field_and_the_label(self):
        base, changed = self.show("edge"), self.show("edge", "--set", "tensor.rows=32")
        self.assertEqual(changed["tensor"]["rows"], 32)
        base["tensor"]["rows"] = 32
        base["name"] = "edge+tensor.rows=32"
        base["description"] = "edge with tensor.rows=32: 32x16 systolic array, 1 MiB SRAM, 12.8 GB/s DRAM"
        self.assertEqual(changed, base)

    def test_arch_show_output_is_accepted_back_as_an_arch_file(self):
        text = self.ok("arch", "show", "edge", "--set", "tensor.rows=32")
        (self.tmp / "edge32.json").write_text(text)
        self.assertEqual(self.show("edge32.json"), json.loads(text))

        model = example("mlp.onnx")
        self.ok("compile", model, "--arch", "edge32.json", "-o", "mlp.npuart")
        manifest, _ = read_manifest((self.tmp / "mlp.npuart").read_bytes())
        self.assertEqual(json.loads(manifest["arch"]["config"]), json.loads(text))
        self.assertEqual(self.ok("compile", model, "--arch", "edge32.json", "--emit", "isa"),
                         self.ok("compile", model, "--arch", "edge", "--set", "tensor.rows=32", "--emit", "isa"))
        self.ok("run", "mlp.npuart", "--arch", "edge32.json")


class CompileCommandTest(NpusimTestCase):
    def test_disasm_numbers_every_command_and_ends_with_end(self):
        self.ok("compile", example("mlp.onnx"), "-o", "mlp.npuart")
        lines = self.ok("disasm", "mlp.npuart").splitlines()
        parsed = [DISASM_LINE.match(line) for line in lines]
        self.assertTrue(all(parsed), [line for line, m in zip(lines, parsed) if not m][:3])
        self.assertEqual([int(m.group(1)) for m in parsed], list(range(len(lines))))
        mnemonics = [m.group(2) for m in parsed]
        self.assertEqual(mnemonics[-1], "end")
        self.assertEqual(mnemonics.count("end"), 1)
        self.assertLessEqual({"dma.load", "dma.store", "gemm", "sem.wait", "sem.signal"}, set(mnemonics))

    def test_emit_isa_prints_the_command_stream_disasm_shows(self):
        isa = self.ok("compile", example("mlp.onnx"), "-o", "mlp.npuart", "--emit", "isa").splitlines()
        expanded = [DISASM_LINE.match(line) for line in self.ok("disasm", "mlp.npuart", "--expand").splitlines()]
        self.assertEqual(isa, [(m.group(2) + (m.group(3) or "")) for m in expanded])
        # As written, the tile nests are loops: fewer descriptors, each loop's body indented under it.
        written = self.ok("disasm", "mlp.npuart").splitlines()
        self.assertLess(len(written), len(isa))
        loop = next(i for i, line in enumerate(written) if DISASM_LINE.match(line).group(2) == "loop")
        indent = lambda line: len(line) - len(line[8:].lstrip())
        self.assertGreater(indent(written[loop + 1]), indent(written[loop]))
        # --no-loops writes every command out.
        self.ok("compile", example("mlp.onnx"), "-o", "flat.npuart", "--no-loops")
        flat = [DISASM_LINE.match(line) for line in self.ok("disasm", "flat.npuart").splitlines()]
        self.assertEqual(isa, [(m.group(2) + (m.group(3) or "")) for m in flat])

    def test_emit_graph_prints_the_graph_ir(self):
        text = self.ok("compile", example("mlp.onnx"), "--emit", "graph")
        self.assertIn("graph @mlp(%x: fp32[64,256]) -> (%logits: fp32[64,128])", text)
        for fragment in ("Gemm(", 'name = "fc1"', "Relu(", "return %logits"):
            self.assertIn(fragment, text)

    def test_emit_tile_prints_loop_nests_with_estimates(self):
        text = self.ok("compile", example("mlp.onnx"), "--emit", "tile")
        # The ReLU runs on fc1's accumulator, as its epilogue.
        for fragment in ("tile.gemm @fc1", "epilogue=relu -> %h_relu", "tile.none @relu1 op=1: fused into @fc1",
                         "tile.gemm @fc2", "reduction", "estimate"):
            self.assertIn(fragment, text)
        apart = self.ok("compile", example("mlp.onnx"), "--emit", "tile", "--no-fusion")
        self.assertIn("tile.vector @relu1", apart)
        self.assertNotIn("epilogue", apart)

    def test_emit_mem_prints_buffer_placement(self):
        text = self.ok("compile", example("mlp.onnx"), "--emit", "mem")
        self.assertTrue(text.startswith("memory.plan"), text[:80])
        for fragment in ("dram %x input", "dram %logits output", "op @fc1", "sram a[0]", "acc acc[0]"):
            self.assertIn(fragment, text)

    def test_dump_ir_writes_every_stage_in_order(self):
        self.ok("compile", example("small_cnn.onnx"), "--dump-ir", "dump")
        files = sorted(path.name for path in (self.tmp / "dump").iterdir())
        self.assertEqual(files[0], "00-import.graph.txt")
        conv = [name for name in files if name.endswith("-convolution-to-gemm.graph.txt")]
        self.assertEqual(len(conv), 1, files)
        self.assertTrue(any(name.endswith("-plan-memory.mem.txt") for name in files), files)
        self.assertTrue(files[-1].endswith("-generate-commands.isa.txt"), files)
        # Numbered in pipeline order, each stage once.
        self.assertEqual([int(name[:2]) for name in files], list(range(len(files))))
        imported = (self.tmp / "dump" / "00-import.graph.txt").read_text()
        lowered = (self.tmp / "dump" / conv[0]).read_text()
        self.assertIn("= Conv(", imported)
        self.assertNotIn("= Conv(", lowered)
        self.assertIn("npusim.Im2Col(", lowered)
        # The last graph stage is the graph --emit graph prints.
        last_graph = [name for name in files if name.endswith(".graph.txt")][-1]
        self.assertEqual((self.tmp / "dump" / last_graph).read_text(),
                         self.ok("compile", example("small_cnn.onnx"), "--emit", "graph"))

    def test_opt_reads_emitted_ir_and_runs_the_named_passes(self):
        graph = self.ok("compile", example("small_cnn.onnx"), "--emit", "graph")
        (self.tmp / "cnn.ir").write_text(graph)
        # The emitted graph has been through every pass: running them again changes nothing.
        self.assertEqual(self.ok("opt", "cnn.ir"), graph)
        (self.tmp / "gemm.ir").write_text(
            "graph @g(%x: fp32[2,3]) -> (%y: fp32[2,2]) {\n"
            "  %w = constant dense<fp32[2,3]: [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]>\n"
            "  %y = Gemm(%x, %w) {name = \"fc\", transB = 1}\n"
            "  return %y\n}\n")
        folded = self.ok("opt", "gemm.ir", "--pass", "fold-gemm-constants")
        self.assertIn("constant dense<fp32[3,2]: [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]>", folded)
        self.assertIn("transB = 0", folded)

    def test_opt_runs_tile_passes_and_memory_planning_one_at_a_time(self):
        (self.tmp / "cnn.ir").write_text(self.ok("compile", example("small_cnn.onnx"), "--emit", "graph"))
        # The tile passes in pipeline order give what the compiler emits; plan-memory its plan.
        fusions = ["--pass", "fuse-gathered-operands", "--pass", "fuse-gemm-epilogues", "--pass", "fuse-vector-kernels"]
        self.assertEqual(self.ok("opt", "cnn.ir", *fusions, "--arch", "edge"),
                         self.ok("compile", example("small_cnn.onnx"), "--emit", "tile", "--arch", "edge"))
        self.assertEqual(self.ok("opt", "cnn.ir", *fusions, "--pass", "plan-memory", "--arch", "edge"),
                         self.ok("compile", example("small_cnn.onnx"), "--emit", "mem", "--arch", "edge"))
        self.assertFailsCleanly(["opt", "cnn.ir", "--pass", "plan-memory", "--pass", "fuse-vector-kernels"], 2,
                                ["fuse-vector-kernels", "level"])

    def test_emit_alone_writes_no_artifact(self):
        self.ok("compile", example("mlp.onnx"), "--emit", "graph")
        self.assertEqual(list(self.tmp.iterdir()), [])

    def test_estimate_lists_every_op_and_their_total(self):
        text = self.ok("compile", example("mlp.onnx"), "--estimate")
        cycles = {line.split()[0]: float(line.split()[-1]) for line in text.splitlines()[1:]}
        self.assertEqual(set(cycles), {"fc1", "relu1", "fc2", "total"})
        self.assertGreater(min(cycles["fc1"], cycles["fc2"]), 0)
        self.assertEqual(cycles["relu1"], 0)  # fused into fc1
        # Each row is rounded on its own, so the sum may be off by one per op.
        self.assertAlmostEqual(cycles["total"], cycles["fc1"] + cycles["relu1"] + cycles["fc2"], delta=3)


class InspectCommandTest(NpusimTestCase):
    def test_inspect_prints_the_manifest_and_sections(self):
        model = example("wide_mlp.onnx")
        self.ok("compile", model, "--arch", "tiny", "-o", "w.npuart")
        sha = hashlib.sha256(open(model, "rb").read()).hexdigest()
        text = self.ok("inspect", "w.npuart")
        for fragment in (f"model     wide_mlp (sha256 {sha})", "arch      tiny", "input     x: fp32[256,1024]",
                         "output    y: fp32[256,256]", "spills h_relu", "commands", "weights", "crc32"):
            self.assertIn(fragment, text)
        summary = json.loads(self.ok("inspect", "w.npuart", "--json"))
        self.assertEqual(summary["model"]["sha256"], sha)
        self.assertEqual(summary["arch"]["config"]["name"], "tiny")
        self.assertEqual([op["name"] for op in summary["ops"]], ["up", "act", "down"])
        sections = {s["name"]: s for s in summary["sections"]}
        self.assertEqual(sections["weights"]["size"], (1024 * 1024 + 1024 * 256) * 4)
        self.assertRegex(sections["commands"]["crc32"], r"^[0-9a-f]{8}$")


class RunCommandTest(NpusimTestCase):
    def test_repeat_reports_cold_warm_and_steady_timing(self):
        self.ok("run", example("mlp.onnx"), "--repeat", "3", "--report", "rep")
        timing = json.loads((self.tmp / "rep" / "report.json").read_text())["timing"]
        self.assertEqual(timing["repeat"], 3)
        # Cold includes creating the context and uploading weights and commands.
        self.assertGreater(timing["cold"]["cycles"], timing["warm"]["cycles"])
        self.assertGreaterEqual(timing["warm"]["cycles"], timing["steady"]["cycles"])
        for phase in ("cold", "warm", "steady"):
            self.assertGreater(timing[phase]["host_seconds"], 0)
        self.ok("run", example("mlp.onnx"), "--report", "once")
        once = json.loads((self.tmp / "once" / "report.json").read_text())["timing"]
        self.assertEqual((once["repeat"], once["warm"], once["steady"]), (0, None, None))
        self.assertGreater(once["cold"]["cycles"], 0)

    def test_force_arch_runs_an_artifact_on_another_config(self):
        self.ok("compile", example("mlp.onnx"), "-o", "mlp.npuart")
        result = self.assertSucceeded(self.npusim("run", "mlp.npuart", "--arch", "edge", "--set", "tensor.rows=32",
                                                  "--force-arch", "--check", "--model", example("mlp.onnx")))
        self.assertIn("--force-arch", result.stdout)
        self.assertIn("check against the reference interpreter: passed", result.stdout)

    def report(self, directory):
        return json.loads((self.tmp / directory / "report.json").read_text())

    def test_run_writes_each_output_as_npy_with_its_shape_and_dtype(self):
        cases = {"matmul_fp32.onnx": ("y", (256, 256), np.float32),
                 "matmul_int8.onnx": ("y", (256, 256), np.int32),
                 "mlp.onnx": ("logits", (64, 128), np.float32)}
        for model, (name, shape, dtype) in cases.items():
            with self.subTest(model=model):
                self.ok("compile", example(model), "-o", "model.npuart")
                self.ok("run", "model.npuart", "--outputs", model)
                output = np.load(self.tmp / model / f"{name}.npy")
                self.assertEqual(output.shape, shape)
                self.assertEqual(output.dtype, dtype)

    def test_run_with_npy_inputs_reproduces_numpy(self):
        rng = np.random.default_rng(7)
        a_fp32 = rng.uniform(-1, 1, (256, 512)).astype(np.float32)
        a_int8 = rng.integers(-128, 128, (256, 512)).astype(np.int8)
        x = rng.standard_normal((64, 256)).astype(np.float32)
        w_fp32 = initializer(example("matmul_fp32.onnx"), "w").astype(np.float64)
        w_int8 = initializer(example("matmul_int8.onnx"), "w").astype(np.int32)
        mlp = {n: initializer(example("mlp.onnx"), n) for n in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")}
        hidden = np.maximum(x.astype(np.float64) @ mlp["fc1.weight"].T + mlp["fc1.bias"], 0)
        cases = {
            "matmul_fp32.onnx": ("a", a_fp32, "y", a_fp32.astype(np.float64) @ w_fp32),
            "matmul_int8.onnx": ("a", a_int8, "y", a_int8.astype(np.int32) @ w_int8),
            "mlp.onnx": ("x", x, "logits", hidden @ mlp["fc2.weight"].T + mlp["fc2.bias"]),
        }
        for model, (input_name, value, output_name, expected) in cases.items():
            with self.subTest(model=model):
                inputs, outputs = self.tmp / f"{model}.in", self.tmp / f"{model}.out"
                inputs.mkdir()
                np.save(inputs / f"{input_name}.npy", value)
                self.ok("run", example(model), "--inputs", inputs, "--outputs", outputs)
                actual = np.load(outputs / f"{output_name}.npy")
                if expected.dtype == np.int32:
                    np.testing.assert_array_equal(actual, expected)
                else:
                    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)

    def test_run_of_model_and_of_its_compiled_artifact_agree(self):
        self.ok("compile", example("mlp.onnx"), "-o", "mlp.npuart")
        self.ok("run", example("mlp.onnx"), "--outputs", "direct", "--report", "direct")
        self.ok("run", "mlp.npuart", "--outputs", "artifact", "--report", "artifact")
        self.assertEqual((self.tmp / "direct" / "logits.npy").read_bytes(),
                         (self.tmp / "artifact" / "logits.npy").read_bytes())
        self.assertEqual(self.report("direct")["total_cycles"], self.report("artifact")["total_cycles"])

    def test_two_runs_with_the_same_inputs_take_the_same_cycles(self):
        (self.tmp / "inputs").mkdir()
        a = np.random.default_rng(3).uniform(-1, 1, (256, 512)).astype(np.float32)
        np.save(self.tmp / "inputs" / "a.npy", a)
        for attempt in ("first", "second"):
            self.ok("run", example("matmul_fp32.onnx"), "--inputs", "inputs",
                    "--outputs", attempt, "--report", attempt)
        self.assertEqual(self.report("first")["total_cycles"], self.report("second")["total_cycles"])
        self.assertEqual(self.report("first")["units"], self.report("second")["units"])
        self.assertEqual((self.tmp / "first" / "y.npy").read_bytes(), (self.tmp / "second" / "y.npy").read_bytes())

    def test_report_directory_holds_a_consistent_report_and_trace(self):
        stdout = self.ok("run", example("mlp.onnx"), "--report", "rep")
        self.assertEqual(sorted(p.name for p in (self.tmp / "rep").iterdir()),
                         ["plots", "report.html", "report.json", "report.md", "timeline.json", "trace.json"])
        plots = sorted(p.name for p in (self.tmp / "rep" / "plots").iterdir())
        self.assertEqual(plots, ["op_cycles.png", "roofline.png", "timeline.png", "utilization.png"])
        for plot in plots:
            self.assertEqual((self.tmp / "rep" / "plots" / plot).read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
        report = self.report("rep")
        total = report["total_cycles"]
        self.assertGreater(total, 0)
        self.assertIn(f"{total} cycles", stdout)
        self.assertGreater(report["clock_hz"], 0)

        self.assertTrue(report["units"])
        for name, unit in report["units"].items():
            with self.subTest(unit=name):
                self.assertTrue(unit["stall_cycles"])
                stalls = sum(unit["stall_cycles"].values())
                self.assertEqual(unit["busy_cycles"] + stalls + unit["idle_cycles"], total)
        self.assertGreater(report["dram"]["bytes_read"], 0)
        self.assertGreater(report["dram"]["bytes_written"], 0)

        self.assertEqual([op["name"] for op in report["ops"]], ["fc1", "relu1", "fc2"])
        cycles = {op["name"]: op["cycles"] for op in report["ops"]}
        self.assertGreater(min(cycles["fc1"], cycles["fc2"]), 0)
        self.assertEqual(cycles["relu1"], 0)  # fused into fc1's epilogue
        self.assertEqual([op["macs"] for op in report["ops"]], [64 * 256 * 512, 0, 64 * 512 * 128])

        # trace.json: a track for every unit that did work, whose slices add up to its busy
        # cycles; a DRAM bandwidth counter that moves what the DMAs moved.
        trace = json.loads((self.tmp / "rep" / "trace.json").read_text())["traceEvents"]
        tracks = {e["args"]["name"]: e["tid"] for e in trace if e["ph"] == "M"}
        for name, unit in report["units"].items():
            with self.subTest(track=name):
                slices = [e for e in trace if e["ph"] == "X" and e["tid"] == tracks[name] and e["cat"] != "stall"]
                self.assertEqual(sum(e["args"]["cycles"] for e in slices), unit["busy_cycles"])
                self.assertEqual(bool(slices), unit["busy_cycles"] > 0)
        counter = [e for e in trace if e["ph"] == "C" and e["name"] == "DRAM bandwidth"]
        self.assertGreater(len(counter), 1)
        self.assertGreater(max(e["args"]["GB/s"] for e in counter), 0)
        window_seconds = (counter[1]["ts"] - counter[0]["ts"]) * 1e-6
        moved = sum(e["args"]["GB/s"] * 1e9 * window_seconds for e in counter)
        self.assertAlmostEqual(moved / sum(op["dram_bytes"] for op in report["ops"]), 1.0, delta=0.01)

        roofline = report["roofline"]
        for key in ("peak_macs_per_cycle", "dram_bytes_per_cycle", "attainable_cycles"):
            self.assertGreater(roofline[key], 0)
        self.assertGreater(roofline["efficiency"], 0)
        self.assertLessEqual(roofline["efficiency"], 1)
        self.assertLessEqual(roofline["attainable_cycles"], total)

        self.assertIn("mlp", (self.tmp / "rep" / "report.md").read_text())
        events = json.loads((self.tmp / "rep" / "trace.json").read_text())["traceEvents"]
        spans = [e for e in events if e.get("ph") == "X"]
        self.assertTrue(spans)
        self.assertTrue(all(e["dur"] >= 0 and e["ts"] >= 0 for e in spans))


if __name__ == "__main__":
    unittest.main(verbosity=2)
