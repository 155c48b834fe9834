#!/usr/bin/python3
"""Control flow inlined at import: If with a run-time condition computes both branches and
selects, Loop unrolls (guarded, with scan outputs cut to the iterations that ran, when its
condition or trip count is known only at run time), Scan unrolls over its sequence; what cannot
be unrolled is refused naming the node."""
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper

from npusim_cli import NpusimTestCase

FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def constant(name, array):
    return helper.make_node("Constant", [], [name], value=helper.make_tensor(name, FLOAT, array.shape, array.ravel()))


class ControlFlowTest(NpusimTestCase):
    def save(self, graph, name, opset=13):
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), self.tmp / name)
        return name

    def run_model(self, model, inputs, *extra):
        """Runs `model` on `inputs` (name -> array) with --check; returns its outputs by name."""
        (self.tmp / "in").mkdir(exist_ok=True)
        for key, array in inputs.items():
            np.save(self.tmp / "in" / f"{key}.npy", array)
        stdout = self.ok("run", model, "--arch", "edge", "--inputs", "in", "--outputs", "out", "--check", *extra)
        self.assertIn("check against the reference interpreter: passed", stdout)
        return {path.stem: np.load(path) for path in (self.tmp / "out").glob("*.npy")}

    def if_model(self, else_shape=(3,)):
        # y = x * 2 if c else x + 1 (else: a constant of else_shape, when not x's)
        then_branch = helper.make_graph([helper.make_node("Mul", ["x", "two"], ["t"])], "then", [], [value("t", FLOAT, [3])])
        else_node = helper.make_node("Add", ["x", "one"], ["e"]) if else_shape == (3,) else helper.make_node("Identity", ["one"], ["e"])
        else_branch = helper.make_graph([else_node], "else", [], [value("e", FLOAT, list(else_shape))])
        graph = helper.make_graph(
            [constant("two", np.array([2.0], np.float32)), constant("one", np.ones(else_shape, np.float32)),
             helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then_branch, else_branch=else_branch)],
            "if", [value("c", BOOL, []), value("x", FLOAT, [3])], [value("y", FLOAT, [3])])
        return self.save(graph, "if.onnx")

    def test_if_with_a_run_time_condition_selects_between_both_branches(self):
        model = self.if_model()
        x = np.array([1.0, -2.0, 3.0], np.float32)
        self.assertIn("Where", self.ok("compile", model, "--mapping"))
        np.testing.assert_array_equal(self.run_model(model, {"c": np.array(True), "x": x})["y"], x * 2)
        np.testing.assert_array_equal(self.run_model(model, {"c": np.array(False), "x": x})["y"], x + 1)

    def test_branches_of_different_shapes_are_refused_naming_the_node(self):
        model = self.if_model(else_shape=(2,))
        self.assertFailsCleanly(["compile", model, "--mapping"], 2, ["'choose'", "then_branch", "else_branch"])

    def loop_model(self, trip_count_input, declared):
        # y_{i+1} = y_i + x[i]; the scan output collects every y.
        body = helper.make_graph(
            [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
             helper.make_node("Unsqueeze", ["i", "zero"], ["start"]),
             helper.make_node("Add", ["i", "one"], ["next"]),
             helper.make_node("Unsqueeze", ["next", "zero"], ["end"]),
             helper.make_node("Slice", ["x", "start", "end"], ["xi"]),
             helper.make_node("Add", ["y_in", "xi"], ["y_out"]),
             helper.make_node("Identity", ["y_out"], ["scan"])],
            "body", [value("i", INT64, []), value("cond_in", BOOL, []), value("y_in", FLOAT, [1])],
            [value("cond_out", BOOL, []), value("y_out", FLOAT, [1]), value("scan", FLOAT, [1])])
        nodes = [helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("zero", INT64, [1], [0])),
                 helper.make_node("Constant", [], ["one"], value=helper.make_tensor("one", INT64, [], [1])),
                 helper.make_node("Constant", [], ["go"], value=helper.make_tensor("go", BOOL, [], [True]))]
        inputs = [value("y", FLOAT, [1]), value("x", FLOAT, [6])]
        if trip_count_input:
            inputs.append(value("n", INT64, []))
        else:
            nodes.append(helper.make_node("Constant", [], ["n"], value=helper.make_tensor("n", INT64, [], [4])))
        nodes.append(helper.make_node("Loop", ["n", "go", "y"], ["y_final", "ys"], name="accumulate", body=body))
        graph = helper.make_graph(nodes, "loop", inputs, [value("y_final", FLOAT, [1]), value("ys", FLOAT, [declared, 1])])
        return self.save(graph, "loop.onnx")

    def test_a_loop_of_constant_trip_count_unrolls_into_plain_dataflow(self):
        model = self.loop_model(trip_count_input=False, declared=4)
        mapping = self.ok("compile", model, "--mapping")
        self.assertNotIn("Where", mapping)
        self.assertNotIn("Compress", mapping)
        x = np.arange(1, 7, dtype=np.float32)
        out = self.run_model(model, {"y": np.array([10.0], np.float32), "x": x})
        np.testing.assert_array_equal(out["ys"].ravel(), [11, 13, 16, 20])
        np.testing.assert_array_equal(out["y_final"], [20])

    def test_a_run_time_trip_count_runs_up_to_the_declared_length_and_cuts_the_scan(self):
        model = self.loop_model(trip_count_input=True, declared=6)
        x = np.arange(1, 7, dtype=np.float32)
        for n in (0, 2, 6):
            with self.subTest(trip_count=n):
                out = self.run_model(model, {"y": np.array([10.0], np.float32), "x": x, "n": np.array(n, np.int64)})
                expected = 10 + np.cumsum(x[:n])
                np.testing.assert_array_equal(out["ys"].ravel(), expected)
                np.testing.assert_array_equal(out["y_final"], [expected[-1] if n else 10])

    def test_a_run_time_trip_count_without_a_declared_length_is_refused(self):
        model = self.loop_model(trip_count_input=True, declared="steps")
        self.assertFailsCleanly(["compile", model, "--mapping"], 2, ["'accumulate'", "trip count"])

    def test_scan_unrolls_over_its_sequence_in_both_directions(self):
        # A running sum read backwards, its outputs stacked along axis 1.
        body = helper.make_graph([helper.make_node("Add", ["sum_in", "next"], ["sum_out"]),
                                  helper.make_node("Identity", ["sum_out"], ["scan_out"])],
                                 "body", [value("sum_in", FLOAT, [2]), value("next", FLOAT, [2])],
                                 [value("sum_out", FLOAT, [2]), value("scan_out", FLOAT, [2])])
        graph = helper.make_graph(
            [helper.make_node("Scan", ["initial", "x"], ["total", "sums"], name="running", body=body, num_scan_inputs=1,
                              scan_input_directions=[1], scan_output_axes=[1])],
            "scan", [value("initial", FLOAT, [2]), value("x", FLOAT, [3, 2])],
            [value("total", FLOAT, [2]), value("sums", FLOAT, [2, 3])])
        model = self.save(graph, "scan.onnx", opset=11)
        x = np.arange(6, dtype=np.float32).reshape(3, 2)
        out = self.run_model(model, {"initial": np.zeros(2, np.float32), "x": x})
        expected = np.cumsum(x[::-1], axis=0)
        np.testing.assert_array_equal(out["sums"], expected.T)
        np.testing.assert_array_equal(out["total"], expected[-1])


if __name__ == "__main__":
    unittest.main()
