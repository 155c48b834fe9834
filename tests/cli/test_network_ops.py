#!/usr/bin/python3
"""Ops that real networks use, end to end: each small model compiles, runs on the simulator and
matches numpy (or the reference interpreter) on presets from tiny to server. Depthwise
convolutions (3x3, 5x5, 7x7, strides 1 and 2, a channel multiplier, dilation, batches) run as one
vector-unit op each, not one GEMM per group. Einsum contractions run as MatMuls on the tensor unit;
diagonals and broadcast labels as a CPU kernel. A vendor's function op (ONNX Runtime's QuickGelu)
runs as its body of NPU ops. An attention's head split and K's transpose are read by the per-head
MatMuls in place (strided operands), not copied. A Linear layer's weight is stored in the column
bands its blocks load, a GELU epilogue runs beside the array's next block, and a residual Add
is where the GEMM's accumulators start."""
import json
import math
import re
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from npusim_cli import NpusimTestCase

RNG = np.random.default_rng(11)


def save(directory, name, nodes, inputs, outputs, initializers=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    path = directory / f"{name}.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)
    return path


def depthwise_reference(x, w, b, stride, pad, dilation):
    n, c, h, width = x.shape
    m, _, kh, kw = w.shape
    multiplier = m // c
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - dilation * (kh - 1) - 1) // stride + 1
    ow = (width + 2 * pad - dilation * (kw - 1) - 1) // stride + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    for o in range(m):
        for i in range(kh):
            for j in range(kw):
                window = padded[:, o // multiplier, i * dilation:i * dilation + stride * oh:stride,
                                j * dilation:j * dilation + stride * ow:stride]
                y[:, o] += window * w[o, 0, i, j]
        y[:, o] += b[o]
    return y.astype(np.float32)


class DepthwiseConvolutionTest(NpusimTestCase):
    CASES = [  # channels, size, kernel, stride, multiplier, dilation, batch
        (16, 12, 3, 1, 1, 1, 1),
        (8, 11, 3, 2, 1, 1, 2),
        (12, 9, 5, 1, 1, 1, 1),
        (6, 14, 7, 2, 2, 1, 1),
        (10, 10, 3, 1, 1, 2, 1),
    ]

    def model(self, channels, size, kernel, stride, multiplier, dilation, batch):
        pad = dilation * (kernel // 2)
        w = RNG.standard_normal((channels * multiplier, 1, kernel, kernel)).astype(np.float32)
        b = RNG.standard_normal(channels * multiplier).astype(np.float32)
        out = (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1
        name = f"dw{channels}_{size}_{kernel}_{stride}_{multiplier}_{dilation}_{batch}"
        node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="dw", group=channels, kernel_shape=[kernel] * 2,
                                pads=[pad] * 4, strides=[stride] * 2, dilations=[dilation] * 2)
        path = save(self.tmp, name, [node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, channels, size, size])],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, channels * multiplier, out, out])],
                    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
        x = RNG.standard_normal((batch, channels, size, size)).astype(np.float32)
        return path, x, depthwise_reference(x, w, b, stride, pad, dilation)

    def test_outputs_match_numpy_on_every_preset(self):
        for case in self.CASES:
            path, x, expected = self.model(*case)
            inputs = self.tmp / (path.stem + ".in")
            inputs.mkdir()
            np.save(inputs / "x.npy", x)
            for arch in ("tiny", "edge", "server"):
                with self.subTest(case=case, arch=arch):
                    out = self.tmp / f"{path.stem}.{arch}.out"
                    self.ok("run", path, "--arch", arch, "--inputs", inputs, "--outputs", out, "--check")
                    np.testing.assert_allclose(np.load(out / "y.npy"), expected, rtol=1e-4, atol=1e-4)

    def test_an_activation_after_it_fuses_into_its_window_kernel_and_stays_exact(self):
        # MobileNet's ReLU6 and EfficientNet's SiLU (x * sigmoid(x): the convolution's result is
        # read twice by the fused kernel).
        channels, size = 24, 20
        w = RNG.standard_normal((channels, 1, 3, 3)).astype(np.float32)
        b = RNG.standard_normal(channels).astype(np.float32)
        x = RNG.standard_normal((1, channels, size, size)).astype(np.float32)
        conv = depthwise_reference(x, w, b, 1, 1, 1).astype(np.float64)
        lo = numpy_helper.from_array(np.array(0, np.float32), "lo")
        hi = numpy_helper.from_array(np.array(6, np.float32), "hi")
        cases = {
            "relu6": ([helper.make_node("Clip", ["c", "lo", "hi"], ["y"])], [lo, hi], np.clip(conv, 0, 6)),
            "silu": ([helper.make_node("Sigmoid", ["c"], ["s"]), helper.make_node("Mul", ["c", "s"], ["y"])], [],
                     conv / (1 + np.exp(-conv))),
        }
        inputs = self.tmp / "act.in"
        inputs.mkdir()
        np.save(inputs / "x.npy", x)
        for name, (nodes, constants, expected) in cases.items():
            dw = helper.make_node("Conv", ["x", "w", "b"], ["c"], group=channels, kernel_shape=[3, 3], pads=[1] * 4)
            path = save(self.tmp, name, [dw, *nodes],
                        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, size, size])],
                        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels, size, size])],
                        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"), *constants])
            for arch in ("edge", "server"):
                with self.subTest(activation=name, arch=arch):
                    tile = self.ok("compile", path, "--arch", arch, "--emit", "tile", "-o", self.tmp / f"{name}.npuart")
                    self.assertRegex(tile, r"tile\.vector @\S+ op=\d+ depthwise_window\+")
                    out = self.tmp / f"{name}.{arch}.out"
                    self.ok("run", path, "--arch", arch, "--inputs", inputs, "--outputs", out)
                    np.testing.assert_allclose(np.load(out / "y.npy"), expected.astype(np.float32), rtol=1e-4, atol=1e-4)

    def test_a_depthwise_convolution_is_one_vector_op(self):
        path, _, _ = self.model(32, 28, 3, 1, 1, 1, 1)
        rows = self.ok("compile", path, "--arch", "edge", "--mapping").splitlines()[1:]
        self.assertEqual(len(rows), 1, rows)
        self.assertIn("vector", rows[0])
        self.assertNotIn("im2col", self.ok("compile", path, "--emit", "tile").lower())


class StridedWindowTest(NpusimTestCase):
    """Strided windows gather their inputs: a stride-2 convolution's patches in strided DMA rows
    (dma.load elem_stride), a stride-2 max pool's taps by the vector unit from the padded input
    planes it loaded once (vec src0_col_stride), one command per tap over the output rows of the
    block's channels; their outputs stay exact."""

    def model(self, name, node, inputs, channels, initializers=()):
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels, 16, 16])
        return save(self.tmp, name, [node], inputs, [y], initializers)

    def test_windows_load_in_strided_rows_and_match_the_reference(self):
        rng = np.random.default_rng(3)
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 32, 32])
        pool = self.model("pool", helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                                                   pads=[1, 1, 1, 1]), [x], 8)
        w = numpy_helper.from_array(rng.standard_normal((16, 8, 3, 3)).astype(np.float32), "w")
        conv = self.model("conv", helper.make_node("Conv", ["x", "w"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1]), [x], 16,
                          [w])
        # fp32 elements two apart: rows whose elements lie 8 bytes apart in DRAM, or every
        # second element of a padded plane's row on chip.
        for path, gather in ((pool, r"vec [^\n]*src0_col_stride=2"), (conv, r"dma\.load [^\n]* elem=4 [^\n]*elem_stride=8")):
            with self.subTest(model=path.stem):
                isa = self.ok("compile", path, "--arch", "edge", "--emit", "isa", "-o", path.with_suffix(".npuart"))
                self.assertRegex(isa, gather)
                self.assertIn("passed", self.ok("run", path, "--arch", "edge", "--check"))

    def test_a_stride_2_pool_computes_only_its_output_rows(self):
        # MaxPool 3x3 stride 2 of 64 planes of 55x55 on server. Its taps could each be one
        # command over a block's padded planes (27 output rows at the planes' 55-element pitch:
        # 1,457 elements a channel for 729 outputs), or one command over the output rows of
        # every channel of the block: each channel's plane is widened to 28 row steps of 110
        # elements, so the rows are 28 a channel (one never stored), 27 elements each, read 110
        # elements apart at stride 2. The cost model takes the latter; each tap command then
        # takes the vector unit's 8-cycle pipeline plus one cycle per 128 elements (max and
        # copy take a cycle per lane group).
        x = RNG.standard_normal((1, 64, 55, 55)).astype(np.float32)
        path = save(self.tmp, "pool55", [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[3, 3],
                                                          strides=[2, 2])],
                    [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64, 27, 27])])
        (self.tmp / "pool55.in").mkdir()
        np.save(self.tmp / "pool55.in" / "x.npy", x)
        self.ok("compile", path, "--arch", "server", "-o", self.tmp / "pool55.npuart")
        vector = [line for line in self.ok("disasm", self.tmp / "pool55.npuart", "--expand").splitlines()
                  if re.search(r"\bvec kind=compute op=0 ", line)]
        taps = [line for line in vector if "func=max " in line or "func=copy " in line]
        self.assertEqual(len(taps) % 9, 0)
        rows = []
        for line in taps:
            self.assertRegex(line, r" cols=27 dst_stride=27 src0_stride=110 .*src0_col_stride=2$")
            rows.append(int(re.search(r" rows=(\d+) ", line).group(1)))
            self.assertEqual(rows[-1] % 28, 0)
        self.assertEqual(sum(rows), 9 * 64 * 28)
        out, report = self.tmp / "pool55.out", self.tmp / "pool55.report"
        self.ok("run", self.tmp / "pool55.npuart", "--model", path, "--inputs", self.tmp / "pool55.in", "--outputs", out,
                "--report", report, "--check")
        windows = [x[:, :, i:i + 53:2, j:j + 53:2] for i in range(3) for j in range(3)]
        np.testing.assert_array_equal(np.load(out / "y.npy"), np.max(windows, axis=0))
        # Each vector command's cycles in the trace (its bank-conflict stalls and its busy
        # time), in the order the vector queue ran them: the stream's order.
        units, events, conflict = {}, [], "pool stall:sram_bank_conflict"
        for line in (report / "trace.json").read_text().splitlines():
            line = line.strip().rstrip(",")
            if line.startswith('{"ph":"M"') and '"thread_name"' in line:
                event = json.loads(line)
                units[event["tid"]] = event["args"]["name"]
            elif line.startswith('{"ph":"X"'):
                event = json.loads(line)
                if units.get(event["tid"]) == "npu.vector" and event["name"] in ("pool vec", conflict):
                    events.append((event["args"]["start_cycle"], event["name"], event["args"]["cycles"]))
        commands, conflicts = [], 0
        for _, name, cycles in sorted(events):
            if name == conflict:
                conflicts += cycles
                continue
            commands.append(conflicts + cycles)
            conflicts = 0
        self.assertEqual(len(commands), len(vector))
        tap_cycles = [cycles for line, cycles in zip(vector, commands) if line in taps]
        self.assertEqual(tap_cycles, [8 + math.ceil(r * 27 / 128) for r in rows])


class EinsumTest(NpusimTestCase):
    def model(self, name, equation, shapes):
        operands = [f"x{i}" for i in range(len(shapes))]
        arrays = [RNG.standard_normal(shape).astype(np.float32) for shape in shapes]
        expected = np.einsum(equation, *arrays).astype(np.float32)
        node = helper.make_node("Einsum", operands, ["y"], name="einsum", equation=equation)
        path = save(self.tmp, name, [node], [helper.make_tensor_value_info(o, TensorProto.FLOAT, list(s))
                                             for o, s in zip(operands, shapes)],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(expected.shape))], opset=12)
        inputs = self.tmp / f"{name}.in"
        inputs.mkdir()
        for operand, array in zip(operands, arrays):
            np.save(inputs / f"{operand}.npy", array)
        return path, inputs, expected

    def test_contractions_run_on_the_tensor_unit_and_the_rest_on_the_cpu(self):
        cases = [  # name, equation, shapes, unit of the contraction
            ("scores", "bhqd,bhkd->bhqk", [(1, 2, 8, 16), (1, 2, 8, 16)], "tensor"),
            ("chain", "ij,jk,kl->il", [(8, 24), (24, 16), (16, 8)], "tensor"),
            ("diagonal", "bii->bi", [(2, 5, 5)], "host CPU"),
        ]
        for name, equation, shapes, unit in cases:
            path, inputs, expected = self.model(name, equation, shapes)
            self.assertIn(unit, self.ok("compile", path, "--arch", "edge", "--mapping"))
            for arch in ("tiny", "server"):
                with self.subTest(equation=equation, arch=arch):
                    out = self.tmp / f"{name}.{arch}.out"
                    self.ok("run", path, "--arch", arch, "--inputs", inputs, "--outputs", out, "--check")
                    np.testing.assert_allclose(np.load(out / "y.npy"), expected, rtol=1e-4, atol=1e-4)


class AttentionTransposeTest(NpusimTestCase):
    def test_head_split_and_key_transpose_are_read_in_place(self):
        # scores = Q K^T per head, from [seq, heads, dh] activations as torch exports them.
        seq, heads, dh = 24, 3, 8
        q = RNG.standard_normal((1, seq, heads, dh)).astype(np.float32)
        k = RNG.standard_normal((1, seq, heads, dh)).astype(np.float32)
        nodes = [helper.make_node("Transpose", ["q"], ["qh"], name="q_heads", perm=[0, 2, 1, 3]),
                 helper.make_node("Transpose", ["k"], ["kt"], name="k_heads_t", perm=[0, 2, 3, 1]),
                 helper.make_node("MatMul", ["qh", "kt"], ["s"], name="scores"),
                 helper.make_node("Transpose", ["s"], ["y"], name="out", perm=[0, 2, 1, 3])]
        path = save(self.tmp, "attention", nodes, [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, seq, heads, dh])
                                                  for n in ("q", "k")],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, seq, heads, seq])])
        inputs = self.tmp / "attention.in"
        inputs.mkdir()
        np.save(inputs / "q.npy", q)
        np.save(inputs / "k.npy", k)
        expected = np.einsum("bqhd,bkhd->bqhk", q, k)
        tile = self.ok("compile", path, "--arch", "edge", "--emit", "tile", "-o", self.tmp / "attention.npuart")
        self.assertIn("tile.none @q_heads op=0: fused into @scores", tile)
        self.assertIn("tile.none @k_heads_t op=1: fused into @scores", tile)
        self.assertRegex(tile, r"tile.gemm @scores .* b=transposed a_row_stride=24 b_row_stride=24")
        for arch in ("tiny", "edge", "server"):
            with self.subTest(arch=arch):
                out = self.tmp / f"attention.{arch}.out"
                self.ok("run", path, "--arch", arch, "--inputs", inputs, "--outputs", out, "--check")
                np.testing.assert_allclose(np.load(out / "y.npy"), expected, rtol=1e-4, atol=1e-4)


def ops_of(report_dir):
    return {op["name"]: op for op in json.loads((report_dir / "report.json").read_text())["ops"]}


class LinearLayerTest(NpusimTestCase):
    def run_linear(self, name, nodes, x, initializers, expected):
        path = save(self.tmp, name, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(expected.shape))], initializers)
        inputs = self.tmp / f"{name}.in"
        inputs.mkdir()
        np.save(inputs / "x.npy", x)
        tile = self.ok("compile", path, "--arch", "server", "--emit", "tile", "-o", self.tmp / f"{name}.npuart")
        out, report = self.tmp / f"{name}.out", self.tmp / f"{name}.report"
        self.ok("run", self.tmp / f"{name}.npuart", "--model", path, "--inputs", inputs, "--outputs", out, "--report", report,
                "--check")
        np.testing.assert_allclose(np.load(out / "y.npy"), expected, rtol=1e-4, atol=1e-4)
        return tile, ops_of(report)

    def test_weight_is_stored_in_the_bands_its_blocks_load(self):
        # y = x W, x 128x1024, W 1024x256 on server: the schedule loads W in blocks of 1024 rows
        # x 128 columns. Row-major, a block's rows are 1 KiB apart and reach 8 of the 16 DRAM
        # channels (256-byte interleave): 1 MiB of W at half of 327.68 B/cycle is 6,400 cycles,
        # plus x's 512 KiB at full bandwidth, 1,600. Stored in two bands of 128 columns, each
        # block is one run: 1.5 MiB at full bandwidth is 4,800 cycles, which the load engine's
        # busy time must stay near.
        x = RNG.standard_normal((128, 1024)).astype(np.float32)
        w = (RNG.standard_normal((1024, 256)) / 32).astype(np.float32)
        tile, ops = self.run_linear("banded", [helper.make_node("MatMul", ["x", "w"], ["y"], name="linear")], x,
                                    [numpy_helper.from_array(w, "w")], x @ w)
        self.assertRegex(tile, r"tile.gemm @linear .* b_bands=128 ")
        disasm = self.ok("disasm", self.tmp / "banded.npuart")
        w_loads = [line for line in disasm.splitlines() if "dma.load" in line and "rows=1024 " in line]
        self.assertEqual(len(w_loads), 2, disasm)
        for line in w_loads:
            self.assertIn("row_bytes=512 dram_stride=512 ", line)
        self.assertLess(ops["linear"]["load_busy_cycles"], 6000)

    def test_a_residual_add_is_where_the_accumulators_start(self):
        # y = (x W + b) + r, a Linear layer and its residual connection, on server: the GEMM adds
        # b in its epilogue, and each result block's accumulator slot is first loaded with r's
        # part (a dma.load into the accumulator memory), the GEMMs accumulating onto it. Neither
        # Add keeps a kernel: one vector command per block (the bias) and no round trip of
        # x W + b through DRAM.
        x = RNG.standard_normal((128, 256)).astype(np.float32)
        r = RNG.standard_normal((128, 512)).astype(np.float32)
        w = (RNG.standard_normal((256, 512)) / 16).astype(np.float32)
        b = RNG.standard_normal(512).astype(np.float32)
        nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"], name="linear"),
                 helper.make_node("Add", ["xw", "b"], ["h"], name="bias"),
                 helper.make_node("Add", ["r", "h"], ["y"], name="residual")]
        path = save(self.tmp, "residual", nodes, [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape))
                                                  for n, a in (("x", x), ("r", r))],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [128, 512])],
                    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
        inputs = self.tmp / "residual.in"
        inputs.mkdir()
        np.save(inputs / "x.npy", x)
        np.save(inputs / "r.npy", r)
        tile = self.ok("compile", path, "--arch", "server", "--emit", "tile", "-o", self.tmp / "residual.npuart")
        self.assertRegex(tile, r"tile.gemm @linear .* residual=%r bias=row ")
        self.assertIn("tile.none @residual op=2: fused into @linear", tile)
        commands = self.ok("disasm", self.tmp / "residual.npuart", "--expand").splitlines()
        stores = [c for c in commands if "dma.store" in c and " op=0 " in c]
        preloads = [c for c in commands if "dma.load" in c and " space=acc " in c]
        vectors = [c for c in commands if re.search(r"\bvec kind=compute op=0 ", c)]
        self.assertTrue(stores)
        self.assertEqual(len(preloads), len(stores))
        self.assertEqual(len(vectors), len(stores))
        self.assertTrue(all("func=add " in c for c in vectors))
        out, report = self.tmp / "residual.out", self.tmp / "residual.report"
        self.ok("run", self.tmp / "residual.npuart", "--model", path, "--inputs", inputs, "--outputs", out, "--report",
                report, "--check")
        np.testing.assert_allclose(np.load(out / "y.npy"), x.astype(np.float64) @ w + b + r, rtol=1e-5, atol=1e-5)
        ops = ops_of(report)
        self.assertEqual([name for name, op in ops.items() if op["commands"]], ["linear"])

    def test_an_operand_a_kernel_makes_for_the_product_alone_stays_with_that_kernel(self):
        # y = (x W) * sigmoid(gates)[:, n:]: the GEMM's result times a slice of a computed tensor
        # (a GRU's reset gate, one row): the slice is read in place by the kernel that
        # multiplies, not copied out for the GEMM's epilogue to load. A tensor of the result's
        # shape that a graph input holds, by contrast, is added by the GEMM (one row: as a row
        # bias).
        x = RNG.standard_normal((1, 64)).astype(np.float32)
        gate = RNG.standard_normal((1, 128)).astype(np.float32)
        r = RNG.standard_normal((1, 64)).astype(np.float32)
        w = (RNG.standard_normal((64, 64)) / 8).astype(np.float32)
        starts, ends, axes = (numpy_helper.from_array(np.array(v, np.int64), n) for v, n in (([64], "s"), ([128], "e"), ([1], "a")))
        nodes = [helper.make_node("Sigmoid", ["gate"], ["gates"], name="gates"),
                 helper.make_node("Slice", ["gates", "s", "e", "a"], ["g"], name="slice"),
                 helper.make_node("MatMul", ["x", "w"], ["xw"], name="linear"),
                 helper.make_node("Mul", ["xw", "g"], ["y"], name="reset"),
                 helper.make_node("MatMul", ["x", "w"], ["xw2"], name="linear2"),
                 helper.make_node("Add", ["xw2", "r"], ["z"], name="residual")]
        path = save(self.tmp, "gated", nodes, [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape))
                                               for n, a in (("x", x), ("gate", gate), ("r", r))],
                    [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 64]) for n in ("y", "z")],
                    [numpy_helper.from_array(w, "w"), starts, ends, axes])
        tile = self.ok("compile", path, "--arch", "server", "--emit", "tile", "-o", self.tmp / "gated.npuart")
        self.assertRegex(tile, r"tile\.gemm @linear op=\d+ fp32 -> fp32 .*k=64 .*\{")
        self.assertNotRegex(tile, r"tile\.gemm @linear .*epilogue")
        self.assertNotRegex(tile, r"tile\.vector @slice ")
        self.assertRegex(tile, r"tile\.gemm @linear2 .*bias=row ")
        self.assertIn("tile.none @residual op=5: fused into @linear2", tile)
        self.assertIn("passed", self.ok("run", path, "--arch", "server", "--check"))

    def test_a_row_bias_is_where_the_accumulators_start(self):
        # y = x W + b, a Linear layer on server: each result block's accumulator slot is first
        # loaded with b's part, one row read once and written to every row of the slot (a
        # dma.load into the accumulator memory with dram_stride=0), and the GEMMs accumulate
        # onto it. The vector unit does no work for the op, and the bias costs DRAM one row per
        # block instead of a vector add of the whole block.
        x = RNG.standard_normal((128, 256)).astype(np.float32)
        w = (RNG.standard_normal((256, 512)) / 16).astype(np.float32)
        b = RNG.standard_normal(512).astype(np.float32)
        nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"], name="linear"),
                 helper.make_node("Add", ["xw", "b"], ["y"], name="bias")]
        path = save(self.tmp, "bias", nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [128, 256])],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [128, 512])],
                    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
        inputs = self.tmp / "bias.in"
        inputs.mkdir()
        np.save(inputs / "x.npy", x)
        tile = self.ok("compile", path, "--arch", "server", "--emit", "tile", "-o", self.tmp / "bias.npuart")
        self.assertRegex(tile, r"tile.gemm @linear .* bias=row beta=1 ")
        commands = self.ok("disasm", self.tmp / "bias.npuart", "--expand").splitlines()
        stores = [c for c in commands if "dma.store" in c and " op=0 " in c]
        preloads = [c for c in commands if "dma.load" in c and " space=acc " in c]
        self.assertTrue(stores)
        self.assertEqual(len(preloads), len(stores))
        self.assertTrue(all(" dram_stride=0 " in c for c in preloads))
        self.assertFalse([c for c in commands if re.search(r"\bvec kind=compute op=0 ", c)])
        out, report = self.tmp / "bias.out", self.tmp / "bias.report"
        self.ok("run", self.tmp / "bias.npuart", "--model", path, "--inputs", inputs, "--outputs", out, "--report",
                report, "--check")
        np.testing.assert_allclose(np.load(out / "y.npy"), x.astype(np.float64) @ w + b, rtol=1e-5, atol=1e-5)
        linear = ops_of(report)["linear"]
        self.assertEqual(linear["vector_busy_cycles"], 0)
        # x, W and y once each, and b's row once per block: nothing more crosses DRAM.
        self.assertEqual(linear["dram_bytes"], 4 * (128 * 256 + 256 * 512 + 128 * 512) + len(preloads) *
                         int(re.search(r" row_bytes=(\d+) ", preloads[0]).group(1)))

    def test_gelu_epilogue_runs_beside_the_next_block(self):
        # y = gelu(x W + b), x 128x256, W 256x1024 on server. Without its epilogue the GEMM's
        # best blocks are all 1024 columns wide (two k blocks of 128), so a fused epilogue
        # would wait for the whole array's work: the vector unit and the array never work at
        # once. The schedule is chosen again with the epilogue (bias add and gelu, 656 cycles
        # per 128x128 block against the array's 512): narrower blocks, each block's epilogue
        # on the vector unit while the array computes the next one.
        x = RNG.standard_normal((128, 256)).astype(np.float32)
        w = (RNG.standard_normal((256, 1024)) / 16).astype(np.float32)
        b = RNG.standard_normal(1024).astype(np.float32)
        half, one, root2 = (numpy_helper.from_array(np.array(v, np.float32), n)
                            for v, n in ((0.5, "half"), (1.0, "one"), (np.sqrt(2.0), "root2")))
        nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"], name="linear"),
                 helper.make_node("Add", ["xw", "b"], ["h"], name="bias"),
                 helper.make_node("Div", ["h", "root2"], ["scaled"], name="gelu.div"),
                 helper.make_node("Erf", ["scaled"], ["erf"], name="gelu.erf"),
                 helper.make_node("Add", ["erf", "one"], ["plus"], name="gelu.add"),
                 helper.make_node("Mul", ["h", "plus"], ["hp"], name="gelu.mul"),
                 helper.make_node("Mul", ["hp", "half"], ["y"], name="gelu.half")]
        h = x.astype(np.float64) @ w + b
        expected = (0.5 * h * (1 + np.vectorize(math.erf)(h / math.sqrt(2)))).astype(np.float32)
        tile, _ = self.run_linear("gelu", nodes, x, [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"),
                                                     half, one, root2], expected)
        header = next(line for line in tile.splitlines() if line.startswith("tile.gemm @linear"))
        self.assertIn("epilogue=gelu", header)
        self.assertNotIn("-> acc[128x1024]", tile)
        # Cycles in which the array runs the op's GEMMs while the vector unit runs its epilogue.
        units = {}
        for line in (self.tmp / "gelu.report" / "trace.json").read_text().splitlines():
            line = line.strip().rstrip(",")
            if line.startswith('{"ph":"M"') and '"thread_name"' in line:
                event = json.loads(line)
                units[event["tid"]] = event["args"]["name"]
        busy = {"npu.tensor": set(), "npu.vector": set()}
        for line in (self.tmp / "gelu.report" / "trace.json").read_text().splitlines():
            line = line.strip().rstrip(",")
            if not line.startswith('{"ph":"X"'):
                continue
            event = json.loads(line)
            unit, name = units.get(event["tid"]), event["name"]
            if event["args"]["op_id"] == 0 and unit in busy and name.endswith((" gemm", " vec")):
                start = event["args"]["start_cycle"]
                busy[unit].update(range(start, start + event["args"]["cycles"]))
        self.assertGreater(len(busy["npu.tensor"] & busy["npu.vector"]), 1000)


class VendorOpTest(NpusimTestCase):
    def test_quick_gelu_runs_as_its_body_on_the_vector_unit(self):
        node = helper.make_node("QuickGelu", ["x"], ["y"], name="act", domain="com.microsoft", alpha=1.702)
        graph = helper.make_graph([node], "quick_gelu", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 64])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
        onnx.save(model, self.tmp / "quick_gelu.onnx")
        rows = self.ok("compile", "quick_gelu.onnx", "--arch", "edge", "--mapping").splitlines()[1:]
        self.assertTrue(rows and all("vector" in row or "none" in row for row in rows), rows)
        x = RNG.standard_normal((4, 64)).astype(np.float32)
        (self.tmp / "in").mkdir()
        np.save(self.tmp / "in" / "x.npy", x)
        self.ok("run", "quick_gelu.onnx", "--arch", "edge", "--inputs", "in", "--outputs", "out", "--check")
        np.testing.assert_allclose(np.load(self.tmp / "out" / "y.npy"), x / (1 + np.exp(-1.702 * x)), rtol=1e-4, atol=1e-5)


if __name__ == "__main__":
    unittest.main(verbosity=2)
