#!/usr/bin/python3
"""Pow with an integer base runs on the NPU and matches the reference exactly: integer
exponents by binary exponentiation (wrapping like int32), negative exponents leaving only
bases of magnitude 1, fractional exponents truncated, constant exponents unrolled."""
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from npusim_cli import NpusimTestCase

BASES = np.array([-3, -2, -1, 0, 1, 2, 3, 7, 46341, -5], dtype=np.int32)
NONZERO = np.where(BASES == 0, 9, BASES).astype(np.int32)  # 0 ** -n is undefined


class IntegerPowerTest(NpusimTestCase):
    def check(self, base, exponent, constant_exponent=False):
        """Runs Pow(base, exponent) with --check (integers compare exactly) in a directory of its own."""
        self.runs = getattr(self, "runs", 0) + 1
        work = self.tmp / f"run{self.runs}"
        work.mkdir()
        elem = {np.dtype(np.int32): TensorProto.INT32, np.dtype(np.int64): TensorProto.INT64,
                np.dtype(np.float32): TensorProto.FLOAT}
        inputs = [helper.make_tensor_value_info("x", elem[base.dtype], list(base.shape))]
        initializers = []
        if constant_exponent:
            initializers.append(numpy_helper.from_array(exponent, "y"))
        else:
            inputs.append(helper.make_tensor_value_info("y", elem[exponent.dtype], list(exponent.shape)))
        graph = helper.make_graph([helper.make_node("Pow", ["x", "y"], ["z"], name="pow")], "pow", inputs,
                                  [helper.make_tensor_value_info("z", elem[base.dtype], list(base.shape))],
                                  initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])
        onnx.checker.check_model(model)
        onnx.save(model, work / "pow.onnx")
        (work / "in").mkdir()
        np.save(work / "in" / "x.npy", base)
        if not constant_exponent:
            np.save(work / "in" / "y.npy", exponent)
        stdout = self.ok("run", work / "pow.onnx", "--inputs", work / "in", "--check", "--outputs", work / "out")
        self.assertIn("check against the reference interpreter: passed", stdout)
        return np.load(work / "out" / "z.npy")

    def test_integer_exponents_are_exact_and_wrap(self):
        exponents = np.array([3, 0, 5, 31, 4, 2, 20, 11, 2, 1], dtype=np.int32)
        z = self.check(BASES, exponents)
        self.assertEqual(z[0], -27)
        self.assertEqual(z[2], -1)          # (-1) ** 31
        self.assertEqual(z[6], 3 ** 20 % 2 ** 32 - 2 ** 32)  # wraps like int32
        self.assertEqual(z[8], 46341 ** 2 - 2 ** 32)

    def test_negative_exponents_keep_only_unit_bases(self):
        exponents = np.array([-1, -2, -3, -1, -4, -1, -2, -1, -1, -2], dtype=np.int32)
        z = self.check(NONZERO, exponents)
        self.assertEqual(list(z[[2, 4]]), [-1, 1])

    def test_float_exponents_truncate_fractions(self):
        exponents = np.array([2.0, 3.0, 0.5, 1.0, 2.5, 0.5, 1.5, 2.0, 0.0, 3.0], dtype=np.float32)
        base = np.abs(BASES).astype(np.int64)
        base[3] = 4
        z = self.check(base, exponents)
        self.assertEqual(list(z[[5, 6]]), [1, 5])  # trunc(2 ** 0.5), trunc(3 ** 1.5)

    def test_constant_exponents_unroll(self):
        exponents = [np.array(v, dtype=np.int32) for v in (5, -2, 0, 1, 31)] + [np.array(2.5, dtype=np.float32)]
        for exponent in exponents:
            with self.subTest(exponent=float(exponent)):
                base = NONZERO if exponent.dtype == np.int32 else np.abs(BASES) % 100
                self.check(base, exponent, constant_exponent=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
