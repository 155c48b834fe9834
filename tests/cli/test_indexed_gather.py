#!/usr/bin/python3
"""A Gather whose indices are known only at run time (an embedding lookup) runs on the NPU as
indexed DMA loads: the DMA reads the index list from DRAM and then the table rows it names, so
the op moves the picked rows, not the table, and no CPU segment is needed. Outputs stay exact,
negative indices count from the back, and an index list the NPU computes is kept in DRAM."""
import json
import re
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from npusim_cli import NpusimTestCase

RNG = np.random.default_rng(11)


class IndexedGatherTest(NpusimTestCase):
    def build(self, name, nodes, inputs, output, initializers=()):
        graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, t, list(a.shape)) for n, (t, a) in inputs.items()],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(output.shape))], list(initializers))
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), self.tmp / f"{name}.onnx")
        directory = self.tmp / f"{name}.in"
        directory.mkdir()
        for n, (_, a) in inputs.items():
            np.save(directory / f"{n}.npy", a)
        return self.tmp / f"{name}.onnx", directory

    def run_model(self, name, path, inputs, arch="edge"):
        artifact, out, report = self.tmp / f"{name}.npuart", self.tmp / f"{name}.out", self.tmp / f"{name}.report"
        self.ok("compile", path, "--arch", arch, "-o", artifact)
        self.ok("run", artifact, "--inputs", inputs, "--outputs", out, "--report", report)
        loads = [line for line in self.ok("disasm", artifact, "--expand").splitlines() if " dma.load " in line]
        return json.loads((report / "report.json").read_text()), loads, np.load(out / "y.npy")

    def test_an_embedding_lookup_moves_the_rows_it_picks(self):
        # 48 int64 ids, negative and repeated ones among them, into a 1000 x 64 fp32 table.
        table = RNG.standard_normal((1000, 64)).astype(np.float32)
        ids = RNG.integers(-1000, 1000, (2, 24)).astype(np.int64)
        ids[1, 5] = ids[0, 3]
        expected = table[ids]
        path, inputs = self.build("embed", [helper.make_node("Gather", ["table", "ids"], ["y"], name="embed")],
                                  {"ids": (TensorProto.INT64, ids)}, expected, [numpy_helper.from_array(table, "table")])
        report, loads, y = self.run_model("embed", path, inputs)
        np.testing.assert_array_equal(y, expected)
        op = report["ops"][0]
        self.assertEqual(op["host"]["kernel_cycles"], 0)
        # DRAM moves the 48 rows of 256 B the ids pick and the 48 x 8 B of ids, then stores the
        # 48 rows: 12,288 + 384 + 12,288 = 24,960 bytes, where the table alone is 256,000.
        self.assertEqual(op["dram_bytes"], 24960)
        self.assertTrue(loads and all("index_elem=8" in line and "index_limit=1000" in line for line in loads), loads)
        # The indices steer the DMA's timing; a timing-only run reads them from DRAM all the same.
        timing = self.tmp / "embed.timing"
        self.ok("run", self.tmp / "embed.npuart", "--inputs", inputs, "--timing-only", "--report", timing)
        self.assertEqual(json.loads((timing / "report.json").read_text())["total_cycles"], report["total_cycles"])

    def test_a_gather_along_an_inner_axis_with_int32_indices(self):
        # Gather(x [3, 10, 8], idx [2, 2] int32, axis 1) -> [3, 2, 2, 8]: both operands inputs.
        x = RNG.standard_normal((3, 10, 8)).astype(np.float32)
        idx = np.array([[9, -10], [4, 4]], dtype=np.int32)
        expected = np.take(x, idx, axis=1)
        path, inputs = self.build("inner", [helper.make_node("Gather", ["x", "idx"], ["y"], name="pick", axis=1)],
                                  {"x": (TensorProto.FLOAT, x), "idx": (TensorProto.INT32, idx)}, expected)
        report, loads, y = self.run_model("inner", path, inputs)
        np.testing.assert_array_equal(y, expected)
        self.assertEqual(report["ops"][0]["host"]["kernel_cycles"], 0)
        indexed = [line for line in loads if "index_elem=4" in line]
        self.assertTrue(indexed, loads)
        # Each plane of x (3 of them, 320 B apart) reads the same 4 indices' rows of 32 B.
        self.assertEqual(sum(int(re.search(r"\brows=(\d+)", line)[1]) * max(1, int(re.search(r"\bplanes=(\d+)", line)[1]))
                             for line in indexed), 12)

    def test_the_lookup_fuses_into_a_reader_of_its_rows(self):
        # Softmax over each picked row: one kernel loads the rows by their indices and
        # normalises them in place; the lookup's result never reaches DRAM.
        table = RNG.standard_normal((100, 64)).astype(np.float32)
        ids = RNG.integers(-100, 100, (32,)).astype(np.int64)
        rows = table[ids].astype(np.float64)
        expected = np.exp(rows - rows.max(-1, keepdims=True))
        expected /= expected.sum(-1, keepdims=True)
        nodes = [helper.make_node("Gather", ["table", "ids"], ["rows"], name="embed"),
                 helper.make_node("Softmax", ["rows"], ["y"], name="softmax", axis=-1)]
        path, inputs = self.build("fused", nodes, {"ids": (TensorProto.INT64, ids)}, expected.astype(np.float32),
                                  [numpy_helper.from_array(table, "table")])
        tile = self.ok("compile", path, "--arch", "edge", "--emit", "tile", "-o", self.tmp / "fused.tile.npuart")
        self.assertIn("gather+Softmax", tile)
        self.assertRegex(tile, r"load v\d+ <- %table .* indexed by %ids")
        report, _, y = self.run_model("fused", path, inputs)
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
        # The rows (32 x 256 B), the ids (32 x 8 B) and the result: nothing in between.
        self.assertEqual(sum(op["dram_bytes"] for op in report["ops"]), 32 * 256 + 32 * 8 + 32 * 256)

    def test_an_index_list_the_npu_computes_stays_in_dram(self):
        # ids + 1 on the vector unit, then the lookup: the sum is the indexed load's list, which
        # the DMA reads from DRAM, so it is not kept on chip.
        table = RNG.standard_normal((50, 16)).astype(np.float32)
        ids = RNG.integers(-1, 49, (32,)).astype(np.int32)
        expected = table[ids + 1]
        nodes = [helper.make_node("Add", ["ids", "one"], ["next"], name="shift"),
                 helper.make_node("Gather", ["table", "next"], ["y"], name="embed")]
        path, inputs = self.build("computed", nodes, {"ids": (TensorProto.INT32, ids)}, expected,
                                  [numpy_helper.from_array(table, "table"), numpy_helper.from_array(np.array(1, np.int32), "one")])
        for arch in ("edge", "server"):
            with self.subTest(arch=arch):
                memory = self.ok("compile", path, "--arch", arch, "--emit", "mem", "-o", self.tmp / f"computed.{arch}.npuart")
                self.assertRegex(memory, r"dram %next .* index-list")
                report, _, y = self.run_model(f"computed.{arch}", path, inputs, arch)
                np.testing.assert_array_equal(y, expected)
                self.assertTrue(all(op["host"]["kernel_cycles"] == 0 for op in report["ops"]))


if __name__ == "__main__":
    unittest.main()
