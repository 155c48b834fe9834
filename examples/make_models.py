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


def wide_mlp(rng, rows=256, features=1024, hidden=1024, out=256):
    """Two MatMuls around a ReLU whose 1 MiB hidden activation fits on chip only on large NPUs."""
    w1 = (rng.standard_normal((features, hidden)) / np.sqrt(features)).astype(np.float32)
    w2 = (rng.standard_normal((hidden, out)) / np.sqrt(hidden)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="up"),
        helper.make_node("Relu", ["h"], ["h_relu"], name="act"),
        helper.make_node("MatMul", ["h_relu", "w2"], ["y"], name="down"),
    ]
    return helper.make_graph(
        nodes, "wide_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, features])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, out])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])


def sampling_head(rng, batch=4, features=64, classes=100, k=10):
    """A classifier head with top-k/top-p post-processing: the NPU computes the logits and the
    softmax; TopK, the CumSum of the top probabilities and an ArgMax over int8-quantized logits
    have no NPU lowering and run as CPU segments."""
    w = (rng.standard_normal((features, classes)) / np.sqrt(features)).astype(np.float32)
    b = (0.1 * rng.standard_normal(classes)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["scores"], name="classifier"),
        helper.make_node("Add", ["scores", "b"], ["logits"], name="bias"),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
        helper.make_node("TopK", ["probs", "k"], ["top_probs", "top_classes"], name="top_k", axis=1),
        helper.make_node("CumSum", ["top_probs", "axis"], ["cumulative"], name="top_p"),
        helper.make_node("QuantizeLinear", ["logits", "scale", "zero"], ["logits_q"], name="quantize"),
        helper.make_node("ArgMax", ["logits_q"], ["best"], name="best_class", axis=1, keepdims=0),
    ]
    return helper.make_graph(
        nodes, "sampling_head",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, features])],
        [helper.make_tensor_value_info("top_classes", TensorProto.INT64, [batch, k]),
         helper.make_tensor_value_info("cumulative", TensorProto.FLOAT, [batch, k]),
         helper.make_tensor_value_info("best", TensorProto.INT64, [batch])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"),
         numpy_helper.from_array(np.array([k], dtype=np.int64), "k"),
         numpy_helper.from_array(np.array(1, dtype=np.int64), "axis"),
         numpy_helper.from_array(np.array(0.05, dtype=np.float32), "scale"),
         numpy_helper.from_array(np.array(0, dtype=np.int8), "zero")])


def batched_conv_classifier(rng, batch=4, channels=3, size=16, filters=8, classes=10):
    """Conv, ReLU, Flatten, Gemm over a batch: the convolution's GEMM writes channels first,
    the Flatten needs batch first, so the compiler inserts a Reformat between them."""
    w = (rng.standard_normal((filters, channels, 3, 3)) / np.sqrt(9 * channels)).astype(np.float32)
    fc = (rng.standard_normal((classes, filters * size * size)) / np.sqrt(filters * size * size)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "conv.weight"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Flatten", ["r"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc.weight"], ["logits"], name="fc", transB=1),
    ]
    return helper.make_graph(
        nodes, "batched_conv_classifier",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, channels, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, classes])],
        [numpy_helper.from_array(w, "conv.weight"), numpy_helper.from_array(fc, "fc.weight")])


def small_cnn(rng, batch=1, channels=3, size=32, classes=10):
    """A small image classifier: two conv-BN-ReLU-pool stages, then flatten and a linear layer."""
    def conv(name, cin, cout):
        w = (rng.standard_normal((cout, cin, 3, 3)) / np.sqrt(cin * 9)).astype(np.float32)
        b = (0.1 * rng.standard_normal(cout)).astype(np.float32)
        return [numpy_helper.from_array(w, f"{name}.weight"), numpy_helper.from_array(b, f"{name}.bias")]

    def bn(name, c):
        return [numpy_helper.from_array(rng.uniform(0.5, 1.5, c).astype(np.float32), f"{name}.scale"),
                numpy_helper.from_array((0.1 * rng.standard_normal(c)).astype(np.float32), f"{name}.bias"),
                numpy_helper.from_array((0.1 * rng.standard_normal(c)).astype(np.float32), f"{name}.mean"),
                numpy_helper.from_array(rng.uniform(0.5, 1.5, c).astype(np.float32), f"{name}.var")]

    c1, c2 = 16, 32
    flat = c2 * (size // 4) * (size // 4)
    fc_w = (rng.standard_normal((classes, flat)) / np.sqrt(flat)).astype(np.float32)
    fc_b = (0.1 * rng.standard_normal(classes)).astype(np.float32)
    nodes = []
    inputs = "x"
    for stage, (name, cin, cout) in enumerate([("conv1", channels, c1), ("conv2", c1, c2)]):
        bn_name = f"bn{stage + 1}"
        nodes += [
            helper.make_node("Conv", [inputs, f"{name}.weight", f"{name}.bias"], [f"{name}_out"], name=name,
                             kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization", [f"{name}_out", f"{bn_name}.scale", f"{bn_name}.bias",
                                                    f"{bn_name}.mean", f"{bn_name}.var"], [f"{bn_name}_out"],
                             name=bn_name),
            helper.make_node("Relu", [f"{bn_name}_out"], [f"relu{stage + 1}_out"], name=f"relu{stage + 1}"),
            helper.make_node("MaxPool", [f"relu{stage + 1}_out"], [f"pool{stage + 1}_out"], name=f"pool{stage + 1}",
                             kernel_shape=[2, 2], strides=[2, 2]),
        ]
        inputs = f"pool{stage + 1}_out"
    nodes += [
        helper.make_node("Flatten", [inputs], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["logits"], name="fc", transB=1),
    ]
    initializers = conv("conv1", channels, c1) + bn("bn1", c1) + conv("conv2", c1, c2) + bn("bn2", c2)
    initializers += [numpy_helper.from_array(fc_w, "fc.weight"), numpy_helper.from_array(fc_b, "fc.bias")]
    return helper.make_graph(
        nodes, "small_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, channels, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, classes])], initializers)


def small_cnn_int8(rng, batch=1, channels=3, size=32, classes=10):
    """small_cnn quantized to int8 (QOperator form, as static quantization writes it): two
    QLinearConv-ReLU-MaxPool stages and a QLinearMatMul classifier, per-tensor scales, the GEMMs
    int8 on the tensor unit."""
    def scalar(name, value, dtype):
        return numpy_helper.from_array(np.array(value, dtype=dtype), name)

    def quantized_weights(name, w):
        scale = float(np.abs(w).max()) / 127
        q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        return [numpy_helper.from_array(q, f"{name}.weight"), scalar(f"{name}.w_scale", scale, np.float32),
                scalar(f"{name}.w_zero", 0, np.int8)], scale

    act_scale = 1.0 / 32  # activations of about unit variance, +-4 in int8
    initializers = [scalar("act_scale", act_scale, np.float32), scalar("act_zero", 0, np.int8)]
    nodes = [helper.make_node("QuantizeLinear", ["x", "act_scale", "act_zero"], ["xq"], name="quantize")]
    inputs = "xq"
    c1, c2 = 16, 32
    for stage, (name, cin, cout) in enumerate([("conv1", channels, c1), ("conv2", c1, c2)]):
        w = (rng.standard_normal((cout, cin, 3, 3)) / np.sqrt(cin * 9)).astype(np.float32)
        weights, w_scale = quantized_weights(name, w)
        bias = np.rint(0.1 * rng.standard_normal(cout) / (act_scale * w_scale)).astype(np.int32)
        initializers += weights + [numpy_helper.from_array(bias, f"{name}.bias")]
        n = stage + 1
        nodes += [
            helper.make_node("QLinearConv", [inputs, "act_scale", "act_zero", f"{name}.weight", f"{name}.w_scale",
                                             f"{name}.w_zero", "act_scale", "act_zero", f"{name}.bias"],
                             [f"{name}_q"], name=name, kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
            helper.make_node("DequantizeLinear", [f"{name}_q", "act_scale", "act_zero"], [f"{name}_f"], name=f"dequant{n}"),
            helper.make_node("Relu", [f"{name}_f"], [f"relu{n}_out"], name=f"relu{n}"),
            helper.make_node("QuantizeLinear", [f"relu{n}_out", "act_scale", "act_zero"], [f"relu{n}_q"], name=f"requant{n}"),
            helper.make_node("MaxPool", [f"relu{n}_q"], [f"pool{n}_q"], name=f"pool{n}", kernel_shape=[2, 2], strides=[2, 2]),
        ]
        inputs = f"pool{n}_q"
    flat = c2 * (size // 4) * (size // 4)
    fc_weights, _ = quantized_weights("fc", (rng.standard_normal((flat, classes)) / np.sqrt(flat)).astype(np.float32))
    initializers += fc_weights + [scalar("logit_scale", 1.0 / 16, np.float32)]
    nodes += [
        helper.make_node("Flatten", [inputs], ["flat_q"], name="flatten", axis=1),
        helper.make_node("QLinearMatMul", ["flat_q", "act_scale", "act_zero", "fc.weight", "fc.w_scale", "fc.w_zero",
                                           "logit_scale", "act_zero"], ["logits_q"], name="fc"),
        helper.make_node("DequantizeLinear", ["logits_q", "logit_scale", "act_zero"], ["logits"], name="dequant_logits"),
    ]
    return helper.make_graph(
        nodes, "small_cnn_int8",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, channels, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, classes])], initializers)


def transformer_block(rng, seq=256, dim=512, heads=8, hidden=1024):
    """A pre-norm decoder block: RMSNorm, Q/K/V projections, rotary embeddings, softmax attention
    over `heads` heads, the output projection and a SiLU MLP, each with its residual."""
    head = dim // heads
    init = []

    def const(name, array):
        init.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(name, rows, cols):
        return const(name, (rng.standard_normal((rows, cols)) / np.sqrt(rows)).astype(np.float32))

    nodes = []

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def rms_norm(x, prefix):
        square = node("Mul", [x, x], f"{prefix}.square")
        mean = node("ReduceMean", [square], f"{prefix}.mean", axes=[-1], keepdims=1)
        eps = node("Add", [mean, const(f"{prefix}.eps", np.array(1e-6, np.float32))], f"{prefix}.add_eps")
        root = node("Sqrt", [eps], f"{prefix}.sqrt")
        scaled = node("Div", [x, root], f"{prefix}.normalize")
        return node("Mul", [scaled, const(f"{prefix}.gain", rng.uniform(0.8, 1.2, dim).astype(np.float32))],
                    f"{prefix}.gain_mul")

    positions = np.arange(seq)[:, None] / (10000 ** (np.arange(0, head, 2) / head))[None, :]
    cos = const("rope.cos", np.tile(np.cos(positions), 2).astype(np.float32))  # [seq, head]
    sin = const("rope.sin", np.tile(np.sin(positions), 2).astype(np.float32))
    half_starts, half_ends = const("rope.first", np.array([0], np.int64)), const("rope.half", np.array([head // 2], np.int64))
    end, last_axis = const("rope.end", np.array([head], np.int64)), const("rope.axis", np.array([-1], np.int64))
    split_heads = const("shape.heads", np.array([seq, heads, head], np.int64))
    merge_heads = const("shape.merged", np.array([seq, dim], np.int64))

    def heads_of(x, prefix):
        return node("Transpose", [node("Reshape", [x, split_heads], f"{prefix}.split")], f"{prefix}.heads",
                    perm=[1, 0, 2])  # [heads, seq, head]

    def rope(x, prefix):
        first = node("Slice", [x, half_starts, half_ends, last_axis], f"{prefix}.first_half")
        second = node("Slice", [x, half_ends, end, last_axis], f"{prefix}.second_half")
        rotated = node("Concat", [node("Neg", [second], f"{prefix}.neg"), first], f"{prefix}.rotate", axis=-1)
        return node("Add", [node("Mul", [x, cos], f"{prefix}.cos_mul"), node("Mul", [rotated, sin], f"{prefix}.sin_mul")],
                    f"{prefix}.rope")

    x = "x"
    h = rms_norm(x, "attn_norm")
    q = rope(heads_of(node("MatMul", [h, weight("wq", dim, dim)], "q_proj"), "q"), "q")
    k = rope(heads_of(node("MatMul", [h, weight("wk", dim, dim)], "k_proj"), "k"), "k")
    v = heads_of(node("MatMul", [h, weight("wv", dim, dim)], "v_proj"), "v")
    scores = node("MatMul", [q, node("Transpose", [k], "k_t", perm=[0, 2, 1])], "scores")
    scaled = node("Mul", [scores, const("attn.scale", np.array(1 / np.sqrt(head), np.float32))], "scores_scaled")
    probs = node("Softmax", [scaled], "attn_softmax", axis=-1)
    context = node("MatMul", [probs, v], "context")
    merged = node("Reshape", [node("Transpose", [context], "context_t", perm=[1, 0, 2]), merge_heads], "context_merged")
    attn = node("Add", [x, node("MatMul", [merged, weight("wo", dim, dim)], "o_proj")], "attn_residual")
    m = rms_norm(attn, "mlp_norm")
    up = node("MatMul", [m, weight("w_up", dim, hidden)], "up_proj")
    act = node("Mul", [up, node("Sigmoid", [up], "silu_gate")], "silu")
    out = node("Add", [attn, node("MatMul", [act, weight("w_down", hidden, dim)], "down_proj")], "y")
    return helper.make_graph(
        nodes, "transformer_block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, dim])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, [seq, dim])], init)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(2026)
    save(matmul_fp32(rng), os.path.join(out, "matmul_fp32.onnx"))
    save(matmul_int8(rng), os.path.join(out, "matmul_int8.onnx"))
    save(mlp(rng), os.path.join(out, "mlp.onnx"))
    save(small_cnn(rng), os.path.join(out, "small_cnn.onnx"))
    save(transformer_block(rng), os.path.join(out, "transformer_block.onnx"))
    save(wide_mlp(rng), os.path.join(out, "wide_mlp.onnx"))
    save(batched_conv_classifier(rng), os.path.join(out, "batched_conv_classifier.onnx"))
    save(sampling_head(rng), os.path.join(out, "sampling_head.onnx"))
    save(small_cnn_int8(rng), os.path.join(out, "small_cnn_int8.onnx"))


if __name__ == "__main__":
    main()
