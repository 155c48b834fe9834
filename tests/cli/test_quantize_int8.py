#!/usr/bin/python3
"""int8 post-training quantisation: `--precision int8 --calibrate-inputs DIR` quantises a float
model's GEMMs and convolutions from activation ranges measured on calibration samples (weights per
output channel), runs them as integer GEMMs whose requantisation is their epilogue, and computes
exactly what a numpy reference of the same scales computes. A max pool takes int8 values as they
are. Overrides keep ops fp32; int8 without calibration samples is refused in one line."""
import json
import re
import unittest

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

from npusim_cli import NpusimTestCase, example

ROWS, K, HIDDEN, N = 32, 64, 48, 24


def activation_params(low, high):
    """The asymmetric int8 scale and zero point of a calibrated range (docs/COMPILER.md)."""
    low, high = min(float(low), 0.0), max(float(high), 0.0)
    scale = np.float32((high - low) / 255.0)
    return scale, int(np.clip(np.rint(-128.0 - low / np.float64(scale)), -128, 127))


def weight_params(w):
    """Symmetric int8 weights, one scale per output column: max |w| / 127."""
    scales = np.abs(w).max(axis=0).astype(np.float32) / np.float32(127)
    return np.clip(np.rint(w / scales), -127, 127).astype(np.int32), scales


def quantize(x, scale, zero_point):
    return np.clip(np.rint(x.astype(np.float32) / np.float32(scale)) + zero_point, -128, 127).astype(np.int32)


class QuantizeInt8Test(NpusimTestCase):
    def calibration(self, draw, samples=3):
        """cal/s0, cal/s1, ...: each sample's x, draw(i)."""
        for i in range(samples):
            (self.tmp / "cal" / f"s{i}").mkdir(parents=True)
            np.save(self.tmp / "cal" / f"s{i}" / "x.npy", draw(i))

    def two_layer_model(self):
        """x -> MatMul -> Add (bias) -> Clip(0, 6) -> MatMul -> Add -> y, columns of each weight
        scaled apart (per-channel scales matter), the first layer's results mostly beyond 6 so
        that the clip's calibrated range is exactly [0, 6]."""
        rng = np.random.RandomState(7)
        column_scales = lambda n: np.logspace(-1, 1, n).astype(np.float32)
        self.w1 = (rng.randn(K, HIDDEN) * column_scales(HIDDEN)).astype(np.float32)
        self.b1 = rng.randn(HIDDEN).astype(np.float32)
        self.w2 = (rng.randn(HIDDEN, N) * 0.1 * column_scales(N)).astype(np.float32)
        self.b2 = rng.randn(N).astype(np.float32)
        low, high = (numpy_helper.from_array(np.array(v, np.float32), name) for v, name in ((0, "low"), (6, "high")))
        nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
                 helper.make_node("Add", ["h", "b1"], ["hb"], name="fc1_bias"),
                 helper.make_node("Clip", ["hb", "low", "high"], ["a"], name="clip"),
                 helper.make_node("MatMul", ["a", "w2"], ["o"], name="fc2"),
                 helper.make_node("Add", ["o", "b2"], ["y"], name="fc2_bias")]
        weights = [numpy_helper.from_array(v, n) for v, n in ((self.w1, "w1"), (self.b1, "b1"), (self.w2, "w2"),
                                                              (self.b2, "b2"))]
        graph = helper.make_graph(nodes, "two_layers", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [ROWS, K])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [ROWS, N])],
                                  weights + [low, high])
        save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(self.tmp / "two.onnx"))
        samples = [rng.uniform(-1, 1, (ROWS, K)).astype(np.float32) for _ in range(4)]
        self.calibration(lambda i: samples[i], len(samples))
        (self.tmp / "in").mkdir()
        self.x = rng.uniform(-1, 1, (ROWS, K)).astype(np.float32)
        np.save(self.tmp / "in" / "x.npy", self.x)
        return samples

    def numpy_reference(self, samples):
        """The integer pipeline in numpy, from the same calibration and the documented formulas."""
        sx, zx = activation_params(min(s.min() for s in samples), max(s.max() for s in samples))
        sa, za = activation_params(0.0, 6.0)  # the clip's range
        q1, s1 = weight_params(self.w1)
        q2, s2 = weight_params(self.w2)
        p1, p2 = np.float32(sx) * s1, np.float32(sa) * s2  # the products' scales, per column
        bias = lambda b, p: np.rint(b.astype(np.float64) / p.astype(np.float64)).astype(np.int32)
        acc1 = (quantize(self.x, sx, zx) - zx) @ q1 + bias(self.b1, p1)
        a = np.clip(np.rint(acc1.astype(np.float32) * (p1 / np.float32(sa))) + za, -128, 127).astype(np.int32)
        acc2 = (a - za) @ q2 + bias(self.b2, p2)
        return acc2.astype(np.float32) * p2

    def test_a_quantised_gemm_computes_what_numpy_does_with_the_same_scales(self):
        samples = self.two_layer_model()
        out = self.ok("run", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal", "--inputs", "in",
                      "--outputs", "out", "--check")
        actual = np.load(self.tmp / "out" / "y.npy")
        expected = self.numpy_reference(samples)
        self.assertTrue(np.array_equal(actual, expected), f"max difference {np.abs(actual - expected).max()}")
        self.assertIn("check against the compiled int8 program: passed (max abs error 0,", out)
        # Against fp32 the precision costs something, measured.
        [line] = [l for l in out.splitlines() if l.strip().startswith("y:")]
        self.assertGreater(float(re.search(r"cosine ([0-9.]+)", line).group(1)), 0.99)

    def test_per_channel_requantisation_runs_as_the_gemm_epilogue(self):
        self.two_layer_model()
        tile = self.ok("compile", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal", "--emit", "tile")
        # fc1: the bias in the accumulator, then one requantize step with the per-column
        # multipliers: the GEMM stores int8. fc2, read only by the graph's output, stores its
        # sums scaled to fp32 per column (one dequantize step).
        self.assertRegex(tile, r"tile\.gemm @fc1\.product .*int8 -> int32 -> int8 .*bias=row .*"
                               r"epilogue=requantize\(%fc1\.multiplier\S* row\)")
        self.assertRegex(tile, r"tile\.gemm @fc2\.product .*int8 -> int32 -> fp32 .*epilogue=dequantize\(%fc2\.multiplier\S* row\)")
        graph = self.ok("compile", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal", "--emit", "graph")
        self.assertIn("%x.scale = constant dense<fp32[]:", graph)
        self.assertRegex(graph, r"QuantizeLinear\(%x, %x\.scale, %x\.zero_point\)")
        self.assertIn("%fc1.w_int8 = constant int8[64,48]", graph)
        self.assertNotIn("Clip", graph)  # absorbed into the range of fc1's int8 results

    def test_a_batch_1_classifier_head_rescales_in_its_gemm_epilogue(self):
        # A torchvision head: Gemm(x[1, 64], W[10, 64]^T) + b, the graph's output. One result
        # row: the bias and the per-class rescale are broadcast over a kernel of one row, and
        # still become the GEMM's row bias and dequantize step (no vector op after it).
        rng = np.random.RandomState(2)
        weights = [numpy_helper.from_array(rng.randn(10, 64).astype(np.float32), "w"),
                   numpy_helper.from_array(rng.randn(10).astype(np.float32), "b")]
        graph = helper.make_graph([helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc", transB=1)], "head",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], weights)
        save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(self.tmp / "head.onnx"))
        self.calibration(lambda i: rng.randn(1, 64).astype(np.float32))
        args = ["head.onnx", "--precision", "int8", "--calibrate-inputs", "cal"]
        tile = self.ok("compile", *args, "--emit", "tile")
        self.assertRegex(tile, r"tile\.gemm @fc\.product .* m=1 n=10 .*bias=row .*epilogue=dequantize\(%fc\.multiplier\S* row\) -> %y")
        self.assertNotRegex(tile, r"tile\.vector @fc\.")
        self.assertIn("check against the compiled int8 program: passed (max abs error 0,", self.ok("run", *args, "--check"))

    def test_convolutions_run_int8_and_match_their_program(self):
        (self.tmp / "cal").mkdir()
        self.calibration(lambda i: np.random.RandomState(i).uniform(-1, 1, (1, 3, 32, 32)).astype(np.float32))
        out = self.ok("run", example("small_cnn.onnx"), "--precision", "int8", "--calibrate-inputs", "cal",
                      "--check", "--report", "rep")
        self.assertIn("check against the compiled int8 program: passed (max abs error 0,", out)
        report = json.loads((self.tmp / "rep" / "report.json").read_text())
        self.assertEqual(report["precision"], "int8")
        self.assertGreater(min(o["cosine"] for o in report["check"]["outputs"]), 0.99)
        mapping = self.ok("compile", example("small_cnn.onnx"), "--precision", "int8", "--calibrate-inputs", "cal",
                          "--mapping")
        gemms = [line for line in mapping.splitlines() if "tensor unit" in line]
        self.assertTrue(gemms)
        for line in gemms:
            self.assertIn("int8 GEMM", line)

    def test_a_residual_block_keeps_its_activations_int8(self):
        # x -> conv_a -> relu -> conv_b -> add(h) -> relu -> conv_c, h = relu(conv_in(x)): h and
        # the block's sum are each quantised once, their fp32 readers (the adds) take them
        # dequantised, the relus are absorbed or cut by the quantise, and conv_b's result, read
        # only by the add, is scaled to fp32 in its GEMM.
        rng = np.random.RandomState(3)
        conv = lambda name, x, y, c_in, c_out: (helper.make_node("Conv", [x, name + ".w", name + ".b"], [y], name=name,
                                                                 pads=[1, 1, 1, 1]),
                                                [numpy_helper.from_array((rng.randn(c_out, c_in, 3, 3) * 0.2).astype(np.float32), name + ".w"),
                                                 numpy_helper.from_array(rng.randn(c_out).astype(np.float32) * 0.1, name + ".b")])
        nodes, weights = [], []
        for name, x, y, c_in in (("conv_in", "x", "c0", 3), ("conv_a", "h", "c1", 8), ("conv_b", "r1", "c2", 8),
                                 ("conv_c", "out", "y", 8)):
            node, w = conv(name, x, y, c_in, 8)
            nodes.append(node)
            weights += w
        nodes[1:1] = [helper.make_node("Relu", ["c0"], ["h"], name="relu_in")]
        nodes[3:3] = [helper.make_node("Relu", ["c1"], ["r1"], name="relu_a")]
        nodes[5:5] = [helper.make_node("Add", ["c2", "h"], ["s"], name="add"), helper.make_node("Relu", ["s"], ["out"], name="relu_out")]
        graph = helper.make_graph(nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 16, 16])], weights)
        save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(self.tmp / "block.onnx"))
        self.calibration(lambda i: rng.randn(1, 3, 16, 16).astype(np.float32))
        ir = self.ok("compile", "block.onnx", "--precision", "int8", "--calibrate-inputs", "cal", "--emit", "graph")
        self.assertNotIn("Relu", ir)
        self.assertEqual(len(re.findall(r"= QuantizeLinear\(%h[,.]", ir)), 0)  # h comes int8 from conv_in
        self.assertEqual(len(re.findall(r"= QuantizeLinear\(%s, %out\.scale", ir)), 1)  # the sum, quantised once
        self.assertRegex(ir, r"%out\.zero_point = constant dense<int8\[\]: \[-128\]>")
        self.assertRegex(ir, r"%c2 = Mul\(%conv_b\.to_float\.0, %conv_b\.scales\)")  # conv_b's sums, scaled to fp32
        # The residual add runs in conv_b's epilogue: its sums dequantised per channel, h read
        # int8 and dequantised where each block lands (its DequantizeLinear goes), the sum
        # quantised: the block is GEMMs only.
        tile = self.ok("compile", "block.onnx", "--precision", "int8", "--calibrate-inputs", "cal", "--emit", "tile")
        self.assertRegex(tile, r"tile\.gemm @conv_b\S* .*int8 -> int32 -> int8 .*epilogue=dequantize\(%conv_b\.scales column\)"
                               r"\+add\(%\S+ full int8 dequantized\)\+quantize -> %out\.quantize")
        self.assertEqual(re.findall(r"tile\.vector @(\S+)", tile), ["x.quantize"])
        for preset in ("edge", "server"):
            out = self.ok("run", "block.onnx", "--arch", preset, "--precision", "int8", "--calibrate-inputs", "cal", "--check")
            self.assertIn("check against the compiled int8 program: passed (max abs error 0,", out)
            self.assertGreater(float(re.search(r"cosine ([0-9.]+)", out).group(1)), 0.99)

    def test_a_max_pool_takes_int8_values_as_they_are(self):
        # x -> stem (conv, relu) -> max pool 3x3 stride 2 -> conv_a, + pool (a residual add):
        # the pool picks among the stem's int8 results (quantising keeps their order), so the
        # stem stores int8 and nothing is quantised after the pool; the add reads the pool
        # dequantised.
        rng = np.random.RandomState(5)
        weights = [numpy_helper.from_array((rng.randn(8, c, 3, 3) * 0.3).astype(np.float32), name)
                   for name, c in (("stem.w", 3), ("conv_a.w", 8))]
        nodes = [helper.make_node("Conv", ["x", "stem.w"], ["c0"], name="stem", pads=[1, 1, 1, 1]),
                 helper.make_node("Relu", ["c0"], ["r0"], name="relu"),
                 helper.make_node("MaxPool", ["r0"], ["p"], name="pool", kernel_shape=[3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1]),
                 helper.make_node("Conv", ["p", "conv_a.w"], ["c1"], name="conv_a", pads=[1, 1, 1, 1]),
                 helper.make_node("Add", ["c1", "p"], ["y"], name="add")]
        graph = helper.make_graph(nodes, "stem", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 20, 20])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 10, 10])], weights)
        save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(self.tmp / "stem.onnx"))
        self.calibration(lambda i: rng.randn(1, 3, 20, 20).astype(np.float32))
        args = ["stem.onnx", "--precision", "int8", "--calibrate-inputs", "cal"]
        ir = self.ok("compile", *args, "--emit", "graph")
        self.assertRegex(ir, r"= MaxPool\(%stem\.\S+\)")  # the stem's int8 result
        self.assertEqual(re.findall(r"= QuantizeLinear\(%(p|r0)[,.]", ir), [])
        self.assertRegex(ir, r"= DequantizeLinear\(%pool\.int8\S*, ")
        mapping = self.ok("compile", *args, "--mapping")
        self.assertRegex(mapping, r"pool\.int8 +MaxPool +int8 +vector unit")
        self.assertRegex(mapping, r"stem\S* +MatMulInteger .*epilogue requantize")
        for preset in ("edge", "server"):
            out = self.ok("run", *args, "--arch", preset, "--check")
            self.assertIn("check against the compiled int8 program: passed (max abs error 0,", out)
            self.assertGreater(float(re.search(r"cosine ([0-9.]+)", out).group(1)), 0.99)

    def test_an_fp32_residual_is_added_in_the_epilogue_of_an_int8_gemm(self):
        # y = x @ W + x, the MatMul int8 and its sums scaled to fp32 per column: the Add of the
        # fp32 input (a transformer's residual around a projection) is an epilogue step with a
        # tensor of the result's shape as its operand.
        rng = np.random.RandomState(4)
        w = numpy_helper.from_array((rng.randn(K, K) * 0.1).astype(np.float32), "w")
        graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["h"], name="proj"),
                                   helper.make_node("Add", ["h", "x"], ["y"], name="residual")], "res",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [ROWS, K])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [ROWS, K])], [w])
        save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(self.tmp / "res.onnx"))
        self.calibration(lambda i: rng.uniform(-1, 1, (ROWS, K)).astype(np.float32))
        args = ["res.onnx", "--precision", "int8", "--calibrate-inputs", "cal"]
        tile = self.ok("compile", *args, "--emit", "tile")
        self.assertRegex(tile, r"tile\.gemm @proj\.product .*epilogue=dequantize\(%proj\.multiplier\S* row\)\+add\(%x full\) -> %y")
        self.assertIn("check against the compiled int8 program: passed (max abs error 0,", self.ok("run", *args, "--check"))

    def test_an_override_keeps_an_op_fp32(self):
        self.two_layer_model()
        mapping = self.ok("compile", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal",
                          "--precision-override", "fc2=fp32", "--mapping")
        rows = {line.split()[0]: line for line in mapping.splitlines()[1:]}
        self.assertIn("int8 GEMM", rows["fc1.product"])
        self.assertRegex(rows["fc2"], r"MatMul +fp32 +tensor unit")
        out = self.ok("run", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal", "--precision-override",
                      "fc2=fp32", "--check")
        self.assertIn("check against the compiled int8 program: passed", out)
        self.assertFailsCleanly(["compile", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal",
                                 "--precision-override", "fc2=bf16", "-o", "m.npuart"], 2, ["fc2=bf16", "fp32 only"])

    def test_diff_sets_int8_beside_bf16(self):
        self.two_layer_model()
        self.ok("run", "two.onnx", "--precision", "bf16", "--inputs", "in", "--check", "--report", "B")
        self.ok("run", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal", "--inputs", "in", "--check",
                "--report", "I")
        diff = json.loads(self.ok("diff", "B", "I", "--json"))
        self.assertEqual((diff["a"]["precision"], diff["b"]["precision"]), ("bf16", "int8"))
        self.assertLess(diff["b"]["dram_bytes"], diff["a"]["dram_bytes"])
        self.assertIn("(two on edge at int8)", self.ok("diff", "B", "I"))

    def test_int8_without_calibration_and_bad_calibration_are_refused_in_one_line(self):
        self.two_layer_model()
        self.assertFailsCleanly(["compile", "two.onnx", "--precision", "int8", "-o", "m.npuart"], 2,
                                ["--precision int8", "--calibrate-inputs"])
        self.assertFailsCleanly(["compile", "two.onnx", "--calibrate-inputs", "cal", "-o", "m.npuart"], 2,
                                ["--calibrate-inputs", "int8"])
        self.assertFailsCleanly(["compile", "two.onnx", "--precision", "int8", "--calibrate-inputs", "nowhere",
                                 "-o", "m.npuart"], 2, ["nowhere", "not a directory"])
        (self.tmp / "empty").mkdir()
        self.assertFailsCleanly(["compile", "two.onnx", "--precision", "int8", "--calibrate-inputs", "empty",
                                 "-o", "m.npuart"], 2, ["empty", "no sample directories"])
        np.save(self.tmp / "cal" / "s0" / "x.npy", np.full((ROWS, K), np.nan, np.float32))
        self.assertFailsCleanly(["compile", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal",
                                 "-o", "m.npuart"], 2, ["'x'", "NaN"])
        np.save(self.tmp / "cal" / "s0" / "x.npy", np.zeros((ROWS, K + 1), np.float32))
        self.assertFailsCleanly(["compile", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal",
                                 "-o", "m.npuart"], 2, ["x"])
        self.assertFailsCleanly(["compile", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal",
                                 "--calibration", "entropy", "-o", "m.npuart"], 2, ["--calibration", "entropy", "minmax"])

    def test_percentile_and_symmetric_choices_change_the_scales(self):
        self.two_layer_model()
        scale = lambda *flags: float(re.search(r"%x\.scale = constant dense<fp32\[\]: \[([0-9.e-]+)\]>",
                                               self.ok("compile", "two.onnx", "--precision", "int8", "--calibrate-inputs",
                                                       "cal", "--emit", "graph", *flags)).group(1))
        minmax = scale()
        self.assertLess(scale("--calibration", "percentile"), minmax)  # the outliers clipped
        graph = self.ok("compile", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal", "--emit", "graph",
                        "--activation-scheme", "symmetric")
        self.assertIn("%x.zero_point = constant dense<int8[]: [0]>", graph)
        self.ok("run", "two.onnx", "--precision", "int8", "--calibrate-inputs", "cal", "--calibration", "percentile",
                "--activation-scheme", "symmetric", "--check")


if __name__ == "__main__":
    unittest.main()
