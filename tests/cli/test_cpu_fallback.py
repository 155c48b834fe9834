#!/usr/bin/python3
"""CPU fallback: ops the NPU cannot run (TopK, CumSum, an ArgMax over int8) become CPU segments
whose kernels are JIT-compiled from the artifact's LLVM IR; their outputs are right, they show
in the mapping report, the artifact's segment list, the trace (a host track) and as
cpu_fallback findings at their ops."""
import json
import re
import struct
import unittest
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from npusim_cli import NpusimTestCase, example, read_manifest

# x[4,64] -> MatMul + Add -> Softmax -> TopK(10) -> CumSum; logits -> QuantizeLinear -> ArgMax.
MODEL = "sampling_head.onnx"
CPU_OPS = {"top_k": "TopK", "top_p": "CumSum", "best_class": "ArgMax"}


def numpy_reference(x):
    """The sampling head computed by numpy from the model's own weights."""
    weights = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(example(MODEL))).graph.initializer}
    logits = x @ weights["w"] + weights["b"]
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    order = np.argsort(-probs, axis=1, kind="stable")[:, :10]
    cumulative = np.cumsum(np.take_along_axis(probs, order, axis=1), axis=1)
    quantized = np.clip(np.rint(logits / weights["scale"]), -128, 127).astype(np.int8)
    return order, cumulative, quantized.argmax(axis=1)


class CpuFallbackTest(NpusimTestCase):
    def test_mapping_report_puts_the_ops_without_npu_lowering_on_the_host(self):
        rows = {line.split()[0]: line for line in self.ok("compile", example(MODEL), "--mapping").splitlines()[1:]}
        for name, op_type in CPU_OPS.items():
            self.assertIn("host CPU", rows[name])
            self.assertIn("JIT kernel", rows[name])
        for name in ("classifier", "softmax", "quantize"):
            self.assertNotIn("host CPU", rows[name])

    def test_outputs_match_numpy_and_the_reference_interpreter(self):
        x = np.random.default_rng(3).standard_normal((4, 64)).astype(np.float32)
        (self.tmp / "in").mkdir()
        np.save(self.tmp / "in" / "x.npy", x)
        stdout = self.ok("run", example(MODEL), "--inputs", "in", "--outputs", "out", "--check")
        self.assertIn("check against the reference interpreter: passed", stdout)
        order, cumulative, best = numpy_reference(x)
        np.testing.assert_array_equal(np.load(self.tmp / "out" / "top_classes.npy"), order)
        np.testing.assert_allclose(np.load(self.tmp / "out" / "cumulative.npy"), cumulative, rtol=1e-5)
        np.testing.assert_array_equal(np.load(self.tmp / "out" / "best.npy"), best)

    def test_artifact_lists_its_segments_and_carries_the_cpu_code(self):
        self.ok("compile", example(MODEL), "-o", "m.npuart")
        summary = json.loads(self.ok("inspect", "m.npuart", "--json"))
        devices = [s["device"] for s in summary["segments"]]
        # In model order the quantize op would come between CumSum and ArgMax, a second NPU job;
        # ordering for segments runs it in the first one.
        self.assertEqual(devices, ["npu", "cpu", "cpu", "cpu"])
        ops = {op["op_id"]: op["name"] for op in summary["ops"]}
        self.assertEqual({ops[s["op_id"]] for s in summary["segments"] if s["device"] == "cpu"}, set(CPU_OPS))
        sections = {s["name"] for s in summary["sections"]}
        self.assertTrue({"commands", "cpu"} <= sections)
        self.assertNotIn("commands.1", sections)
        text = self.ok("inspect", "m.npuart")
        self.assertIn("cpu  top_k (op 3) as JIT kernel", text)
        self.assertIn("copies in   probs: fp32[4,100]", text)

    def test_an_npu_segment_after_a_cpu_segment_computes_on_its_results(self):
        # MatMul (NPU) -> TopK (host) -> Mul by 2 and a MatMul of the top values (NPU again).
        rng = np.random.default_rng(0)
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", "w"], ["scores"], name="score"),
             helper.make_node("TopK", ["scores", "k"], ["top", "where"], name="pick", axis=1),
             helper.make_node("Mul", ["top", "two"], ["doubled"], name="double"),
             helper.make_node("MatMul", ["doubled", "v"], ["y"], name="mix")], "npu_cpu_npu",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 32])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 16]),
             helper.make_tensor_value_info("where", TensorProto.INT64, [8, 4])],
            [numpy_helper.from_array(rng.standard_normal((32, 64)).astype(np.float32), "w"),
             numpy_helper.from_array(np.array([4], dtype=np.int64), "k"),
             numpy_helper.from_array(np.array(2, dtype=np.float32), "two"),
             numpy_helper.from_array(rng.standard_normal((4, 16)).astype(np.float32), "v")])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), self.tmp / "m.onnx")
        self.ok("compile", "m.onnx", "-o", "m.npuart")
        summary = json.loads(self.ok("inspect", "m.npuart", "--json"))
        self.assertEqual([s.get("section", s["device"]) for s in summary["segments"]], ["commands", "cpu", "commands.1"])
        listing = self.ok("disasm", "m.npuart")
        self.assertIn("# segment 1: CPU kernel @npusim_op1 (op 1)", listing)
        self.assertIn("# segment 2: NPU job, section 'commands.1'", listing)
        stdout = self.ok("run", "m.npuart", "--check", "--model", "m.onnx", "--report", "rep")
        self.assertIn("check against the reference interpreter: passed", stdout)
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        ops = {op["name"]: op for op in report["ops"]}
        self.assertGreater(ops["mix"]["tensor_busy_cycles"], 0)
        self.assertEqual([f["op"] for f in report["findings"] if f["kind"] == "cpu_fallback"], ["pick"])

    def rewrite_manifest(self, artifact, edit):
        """Writes bad.npuart: `artifact` with its manifest text changed by `edit` (same length) and
        its checksum made right again, so that only the runtime's own checks can catch it."""
        data = bytearray((self.tmp / artifact).read_bytes())
        (size,) = struct.unpack_from("<Q", data, 16)
        text = edit(data[24:24 + size].decode())
        self.assertEqual(len(text), size)
        data[24:24 + size] = text.encode()
        struct.pack_into("<I", data, 12, zlib.crc32(text.encode()))
        (self.tmp / "bad.npuart").write_bytes(bytes(data))

    def test_a_cpu_segment_bound_unlike_its_kernel_is_refused_at_load(self):
        self.ok("compile", example(MODEL), "-o", "m.npuart")
        # TopK's input, declared [2,100] instead of the [4,100] its kernel reads.
        self.rewrite_manifest("m.npuart", lambda text: re.sub(r'("name": "probs",\s*"dtype": "fp32",\s*"shape": \[\s*)4',
                                                               r"\g<1>2", text, count=1))
        self.assertFailsCleanly(["run", "bad.npuart"], 2, ["npusim_op3", "compiled for"])
        # ... or placed outside the context's DRAM window.
        manifest = json.loads(self.ok("inspect", "m.npuart", "--json"))
        offset = next(s for s in manifest["segments"] if s["device"] == "cpu")["inputs"][0]["dram_offset"]
        far = "9" * len(str(offset))
        self.assertGreater(int(far), manifest["dram_bytes"])
        self.rewrite_manifest("m.npuart", lambda text: text.replace(f'"dram_offset": {offset}', f'"dram_offset": {far}', 1))
        self.assertFailsCleanly(["run", "bad.npuart"], 2, ["probs", "outside", "window"])

    def test_an_index_out_of_range_stops_the_run_naming_the_op(self):
        # Gather runs on the NPU (an indexed DMA load), GatherND on the host CPU: either way a
        # bad index stops the run with one line naming the op.
        table = np.arange(20, dtype=np.float32).reshape(5, 4)
        cases = (("Gather", [3], "index_out_of_range"), ("GatherND", [3, 1], "outside the indexed axis"))
        for op, ids_shape, why in cases:
            graph = helper.make_graph(
                [helper.make_node(op, ["table", "ids"], ["rows"], name="lookup")], "lookup",
                [helper.make_tensor_value_info("ids", TensorProto.INT64, ids_shape)],
                [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [3, 4])],
                [numpy_helper.from_array(table, "table")])
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), self.tmp / f"{op}.onnx")
            for ids, ok in (([4, -5, 0], True), ([1, 5, 0], False)):
                with self.subTest(op=op, ids=ids):
                    directory = self.tmp / f"{op}{ids[1]}"
                    directory.mkdir()
                    np.save(directory / "ids.npy", np.array(ids, dtype=np.int64).reshape(ids_shape))
                    if ok:
                        self.ok("run", f"{op}.onnx", "--inputs", directory, "--outputs", directory / "out")
                        np.testing.assert_array_equal(np.load(directory / "out" / "rows.npy"), table[ids])
                    else:
                        self.assertFailsCleanly(["run", f"{op}.onnx", "--inputs", directory], 1, [f"'lookup' ({op})", why])

    def test_a_weight_the_cpu_reads_comes_from_the_artifact_not_device_memory(self):
        # An embedding lookup by GatherND (a host op): the table (a weight) is read from the
        # host's own copy; only the ids cross device memory on the way in, and the rows on the
        # way back.
        table = np.random.default_rng(5).standard_normal((1000, 64)).astype(np.float32)
        graph = helper.make_graph(
            [helper.make_node("GatherND", ["table", "ids"], ["rows"], name="embed")], "embed",
            [helper.make_tensor_value_info("ids", TensorProto.INT64, [16, 1])],
            [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [16, 64])],
            [numpy_helper.from_array(table, "table")])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), self.tmp / "embed.onnx")
        ids = np.array([7, 999, 0, 3] * 4, dtype=np.int64)
        (self.tmp / "in").mkdir()
        np.save(self.tmp / "in" / "ids.npy", ids.reshape(16, 1))
        self.ok("compile", "embed.onnx", "-o", "embed.npuart")
        segment = next(s for s in read_manifest((self.tmp / "embed.npuart").read_bytes())[0]["segments"] if s["device"] == "cpu")
        self.assertEqual([b["image_offset"] >= 0 for b in segment["inputs"]], [True, False])
        self.ok("run", "embed.npuart", "--inputs", "in", "--outputs", "out", "--report", "rep")
        np.testing.assert_array_equal(np.load(self.tmp / "out" / "rows.npy"), table[ids])
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        host = next(op for op in report["ops"] if op["name"] == "embed")["host"]
        self.assertEqual(host["copy_bytes"], ids.nbytes + 16 * 64 * 4)

    def test_a_flipped_byte_in_the_cpu_code_is_refused_naming_the_section(self):
        self.ok("compile", example(MODEL), "-o", "m.npuart")
        data = bytearray((self.tmp / "m.npuart").read_bytes())
        manifest, payload_start = read_manifest(bytes(data))
        section = next(s for s in manifest["sections"] if s["name"] == "cpu")
        data[payload_start + section["offset"] + section["size"] // 2] ^= 0x20
        (self.tmp / "bad.npuart").write_bytes(bytes(data))
        self.assertFailsCleanly(["run", "bad.npuart"], 2, ["'cpu'", "checksum"])

    def test_report_has_a_host_track_and_a_cpu_fallback_finding_per_cpu_op(self):
        self.ok("run", example(MODEL), "--report", "rep")
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        findings = {f["op"]: f for f in report["findings"] if f["kind"] == "cpu_fallback"}
        self.assertEqual(set(findings), set(CPU_OPS))
        ops = {op["name"]: op for op in report["ops"]}
        for name, op_type in CPU_OPS.items():
            host = ops[name]["host"]
            self.assertGreater(host["kernel_cycles"], 0)
            self.assertGreater(host["copy_cycles"], 0)
            self.assertEqual(findings[name]["cycles_lost"], host["kernel_cycles"] + host["copy_cycles"])
            self.assertIn(op_type, findings[name]["message"])
            self.assertEqual(ops[name]["bound"], "host")
        # TopK's selection (k x 100 per row) costs more than the 10-element CumSum.
        self.assertGreater(ops["top_k"]["host"]["kernel_cycles"], ops["top_p"]["host"]["kernel_cycles"])

        trace = json.loads((self.tmp / "rep" / "trace.json").read_text())
        tracks = {e["args"]["name"]: e["tid"] for e in trace["traceEvents"] if e["ph"] == "M"}
        self.assertIn("host cpu", tracks)
        host = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["tid"] == tracks["host cpu"]]
        self.assertEqual(sorted(e["name"] for e in host),
                         sorted(f"{op} {part}" for op in CPU_OPS for part in ("copy_in", "kernel", "copy_out")))
        self.assertEqual(sum(e["args"]["cycles"] for e in host), report["units"]["host cpu"]["busy_cycles"])
        # The host works while the NPU's units are idle: no NPU slice overlaps a host kernel.
        npu = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["tid"] != tracks["host cpu"]]
        for kernel in (e for e in host if e["cat"] == "host_kernel"):
            start, end = kernel["args"]["start_cycle"], kernel["args"]["start_cycle"] + kernel["args"]["cycles"]
            for e in npu:
                e_start = e["args"]["start_cycle"]
                self.assertFalse(start < e_start + e["args"]["cycles"] and e_start < end, (kernel["name"], e["name"]))

    def test_timing_counts_the_cpu_segments_and_a_warm_run_is_faster(self):
        self.ok("run", example(MODEL), "--repeat", "3", "--report", "rep")
        timing = json.loads((self.tmp / "rep" / "report.json").read_text())["timing"]
        self.assertGreater(timing["cold"]["cycles"], timing["warm"]["cycles"])
        self.assertGreaterEqual(timing["warm"]["cycles"], timing["steady"]["cycles"])
        # Loading compiles the kernels: the cold start takes longer on the host's clock too.
        self.assertGreater(timing["cold"]["host_seconds"], timing["steady"]["host_seconds"])


if __name__ == "__main__":
    unittest.main()
