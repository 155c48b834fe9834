#!/usr/bin/python3
"""Writes the example ONNX models npusim's demo and tests use (deterministic weights).

    make_models.py OUTPUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 13)]


def save(graph, path):
    model = helper.make_model(graph, opset_imports=OPSET, producer_name="npusim examples")
    onnx.checker.check_model(model)
    onnx.save(model, path)


def matmul_fp32(rng, m=256, k=512, n=256):
    w = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    return helper.make_graph(
        [helper.make_node("MatMul", ["a", "w"], ["y"], name="matmul_0")], "matmul_fp32",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
        [numpy_helper.from_array(w, "w")])


def matmul_int8(rng, m=256, k=512, n=256):
    w = rng.integers(-128, 128, (k, n)).astype(np.int8)
    return helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "w"], ["y"], name="matmul_int8")], "matmul_int8",
        [helper.make_tensor_value_info("a", TensorProto.INT8, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])],
        [numpy_helper.from_array(w, "w")])


def mlp(rng, batch=64, features=256, hidden=512, classes=128):
    """Two fully connected layers as PyTorch exports them: Gemm with transB=1, then ReLU."""
    w1 = (rng.standard_normal((hidden, features)) / np.sqrt(features)).astype(np.float32)
    b1 = (0.1 * rng.standard_normal(hidden)).astype(np.float32)
    w2 = (rng.standard_normal((classes, hidden)) / np.sqrt(hidden)).astype(np.float32)
    b2 = (0.1 * rng.standard_normal(classes)).astype(np.float32)
    nodes = [
        helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["h"], name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["h_relu"], name="relu1"),
        helper.make_node("Gemm", ["h_relu", "fc2.weight", "fc2.bias"], ["logits"], name="fc2", transB=1),
    ]
    return helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, features])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, classes])],
        [numpy_helper.from_array(w1, "fc1.weight"), numpy_helper.from_array(b1, "fc1.bias"),
         numpy_helper.from_array(w2, "fc2.weight"), numpy_helper.from_array(b2, "fc2.bias")])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(2026)
    save(matmul_fp32(rng), os.path.join(out, "matmul_fp32.onnx"))
    save(matmul_int8(rng), os.path.join(out, "matmul_int8.onnx"))
    save(mlp(rng), os.path.join(out, "mlp.onnx"))


if __name__ == "__main__":
    main()
