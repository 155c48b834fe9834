#!/usr/bin/python3
"""Activations an exporter spells out op by op run as one op: a GELU MLP's decomposed GELU
becomes npusim.Gelu (one line in the mapping) and still matches the reference."""
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from npusim_cli import NpusimTestCase


def gelu_mlp(path, rows=32, features=64, hidden=128):
    rng = np.random.default_rng(5)
    const = lambda name, value: numpy_helper.from_array(np.array(value, dtype=np.float32), name)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="up"),
        helper.make_node("Div", ["h", "root2"], ["d"], name="gelu.div"),
        helper.make_node("Erf", ["d"], ["e"], name="gelu.erf"),
        helper.make_node("Add", ["e", "one"], ["a"], name="gelu.add"),
        helper.make_node("Mul", ["h", "a"], ["m"], name="gelu.mul"),
        helper.make_node("Mul", ["m", "half"], ["g"], name="gelu"),
        helper.make_node("MatMul", ["g", "w2"], ["y"], name="down"),
    ]
    graph = helper.make_graph(
        nodes, "gelu_mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, features])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, features])],
        [numpy_helper.from_array((rng.standard_normal((features, hidden)) / 8).astype(np.float32), "w1"),
         numpy_helper.from_array((rng.standard_normal((hidden, features)) / 11).astype(np.float32), "w2"),
         const("root2", 2 ** 0.5), const("one", 1.0), const("half", 0.5)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


class RecognizedActivationTest(NpusimTestCase):
    def test_decomposed_gelu_runs_as_one_op(self):
        gelu_mlp(self.tmp / "gelu.onnx")
        graph = self.ok("compile", "gelu.onnx", "--emit", "graph")
        self.assertIn('npusim.Gelu(%h) {name = "gelu"}', graph)
        self.assertNotIn("Erf(", graph)
        mapping = self.ok("compile", "gelu.onnx", "--mapping")
        self.assertIn("gelu", mapping)
        self.assertNotIn("gelu.erf", mapping)
        stdout = self.ok("run", "gelu.onnx", "--check")
        self.assertIn("check against the reference interpreter: passed", stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
