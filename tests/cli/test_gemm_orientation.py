#!/usr/bin/python3
"""A GEMM whose N is small and M large runs as its transpose: the array holds A and streams B's
columns (gemm transpose=1), so a late convolution layer's few positions no longer leave most of
a wide array's columns idle. The compiler takes the orientation where the cost model expects it
faster, and the outputs stay exact."""
import json
import re
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from npusim_cli import NpusimTestCase

RNG = np.random.default_rng(5)


def conv_reference(x, w, b, pad):
    n, c, h, width = x.shape
    m, _, kh, kw = w.shape
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    y = np.zeros((n, m, h, width), np.float64)
    for i in range(kh):
        for j in range(kw):
            window = padded[:, :, i:i + h, j:j + width]
            y += np.einsum("nchw,mc->nmhw", window, w[:, :, i, j])
    return y + b[None, :, None, None]


class GemmOrientationTest(NpusimTestCase):
    def run_model(self, name, nodes, inputs, output_shape, initializers):
        graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape))
                                                for n, a in inputs.items()],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, output_shape)], initializers)
        path = self.tmp / f"{name}.onnx"
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
        directory = self.tmp / f"{name}.in"
        directory.mkdir()
        for n, a in inputs.items():
            np.save(directory / f"{n}.npy", a)
        artifact, out, report = self.tmp / f"{name}.npuart", self.tmp / f"{name}.out", self.tmp / f"{name}.report"
        tile = self.ok("compile", path, "--arch", "server", "--emit", "tile", "-o", artifact)
        self.ok("run", artifact, "--model", path, "--inputs", directory, "--outputs", out, "--report", report, "--check")
        gemms = [line for line in self.ok("disasm", artifact, "--expand").splitlines() if re.search(r"\bgemm\b", line)]
        ops = {op["name"]: op for op in json.loads((report / "report.json").read_text())["ops"]}
        return tile, gemms, ops, np.load(out / "y.npy")

    def test_a_late_convolution_layer_streams_its_positions(self):
        # A 3x3 convolution of 256 channels on a 7x7 map (ResNet's last stage, halved) on
        # server (128x128, fp32 at 2 cycles a row): Y (256 x 49) = W (256 x 2304) x patches
        # (2304 x 49). Holding the patches, the array uses 49 of its 128 columns and streams
        # W's 256 rows per tile: ceil(2304/128) = 18 tiles of 256 x 2 = 512 cycles, 9,216 at
        # least. Holding W (the transpose), it streams the 49 positions: 18 x 2 tiles of
        # max(128 preload, 49 x 2) = 128 cycles, 4,608. The array's busy cycles fall between:
        # below what the first orientation can reach, so the second was taken.
        x = RNG.standard_normal((1, 256, 7, 7)).astype(np.float32)
        w = (RNG.standard_normal((256, 256, 3, 3)) / 48).astype(np.float32)
        b = RNG.standard_normal(256).astype(np.float32)
        nodes = [helper.make_node("Conv", ["x", "w", "b"], ["h"], name="conv", pads=[1, 1, 1, 1]),
                 helper.make_node("Relu", ["h"], ["y"], name="relu")]
        tile, gemms, ops, y = self.run_model("late_conv", nodes, {"x": x}, [1, 256, 7, 7],
                                             [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
        self.assertIn("gemm.block.transposed", tile)
        self.assertTrue(gemms and all(" transpose=1 " in g for g in gemms), gemms[:3])
        np.testing.assert_allclose(y, np.maximum(conv_reference(x, w, b, 1), 0), rtol=1e-4, atol=1e-4)
        busy = ops["conv.gemm"]["tensor_busy_cycles"]
        self.assertGreaterEqual(busy, 4608)
        self.assertLess(busy, 9216)

    def test_a_narrow_linear_layer_over_many_rows_streams_its_columns(self):
        # y = x W + b, x 512 x 256, W 256 x 16 on server: M = 512 rows, N = 16. As stored the
        # array holds 256 x 16 of W in two tiles and streams all 512 rows through each: 2 x
        # 512 x 2 = 2,048 cycles at least, with 16 of 128 columns. Transposed it holds x's
        # rows, 4 x 2 tiles of 128 x 128, and streams W's 16 columns: 8 x max(128, 32) = 1,024.
        # The schedule takes two blocks of 256 rows of x, each four tiles: the first preloads
        # 128 rows and streams 16 columns at 2 cycles (160), each of the others waits for its
        # own preload (128). A block's x (256 KiB, 800 cycles at 327.68 B/cycle) arrives after
        # the array's 544 cycles, so the array drains (254) before each block's wait: busy
        # 2 x (160 + 3 x 128 + 254) = 1,596.
        x = RNG.standard_normal((512, 256)).astype(np.float32)
        w = (RNG.standard_normal((256, 16)) / 16).astype(np.float32)
        b = RNG.standard_normal(16).astype(np.float32)
        nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"], name="linear"),
                 helper.make_node("Add", ["xw", "b"], ["y"], name="bias")]
        tile, gemms, ops, y = self.run_model("narrow_linear", nodes, {"x": x}, [512, 16],
                                             [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
        self.assertIn("gemm.block.transposed b^T[16x256] a^T[256x256] -> acc[256x16]", tile)
        self.assertTrue(gemms and all(" transpose=1 " in g for g in gemms), gemms[:3])
        np.testing.assert_allclose(y, x.astype(np.float64) @ w + b, rtol=1e-5, atol=1e-5)
        self.assertEqual(ops["linear"]["tensor_busy_cycles"], 1596)


if __name__ == "__main__":
    unittest.main()
