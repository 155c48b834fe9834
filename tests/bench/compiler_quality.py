#!/usr/bin/python3
"""Compiler quality on the simulator, measured side by side in one run (figures, not assertions):

- generated code against the roofline on `edge`: compute-bound GEMM and conv layers (a conv is
  all the ops it becomes, against its MACs at the array's peak), the example transformer block;
- fusion: DRAM bytes of the transformer block with and without --no-fusion;
- compile time: the transformer block and a ResNet-18-sized network (median of several runs).

    tests/bench/compiler_quality.py [BUILD_DIR] [RUNS]
"""
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BUILD = Path(sys.argv[1] if len(sys.argv) > 1 else "build")
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
NPUSIM = BUILD / "bin" / "npusim"
RNG = np.random.default_rng(7)


def save(nodes, name, inputs, outputs, initializers, directory):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    path = directory / f"{name}.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def gemm_model(directory, m, k, n):
    w = numpy_helper.from_array(RNG.uniform(-1, 1, (k, n)).astype(np.float32), "w")
    return save([helper.make_node("MatMul", ["a", "w"], ["y"], name="gemm")], f"gemm_{m}x{k}x{n}",
                [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])], [w], directory)


def conv_model(directory, channels, size, out_channels, kernel):
    w = (RNG.standard_normal((out_channels, channels, kernel, kernel)) / np.sqrt(channels * kernel**2)).astype(np.float32)
    pad = kernel // 2
    return save([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[kernel, kernel], pads=[pad] * 4)],
                f"conv{kernel}x{kernel}_{channels}_{size}",
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, size, size])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, out_channels, size, size])],
                [numpy_helper.from_array(w, "w")], directory)


def resnet18_model(directory):
    """ResNet-18's layer structure at 224x224 (conv, BN, ReLU, residual adds, pools, fc)."""
    nodes, init = [], []

    def conv_bn(x, name, cin, cout, kernel, stride, relu=True):
        w = (RNG.standard_normal((cout, cin, kernel, kernel)) * 0.05).astype(np.float32)
        init.append(numpy_helper.from_array(w, f"{name}.w"))
        for p, v in (("scale", 1.0), ("bias", 0.0), ("mean", 0.0), ("var", 1.0)):
            init.append(numpy_helper.from_array(np.full(cout, v, np.float32), f"{name}.bn.{p}"))
        nodes.append(helper.make_node("Conv", [x, f"{name}.w"], [f"{name}.conv"], name=f"{name}.conv",
                                      kernel_shape=[kernel, kernel], strides=[stride] * 2, pads=[kernel // 2] * 4))
        nodes.append(helper.make_node("BatchNormalization", [f"{name}.conv"] + [f"{name}.bn.{p}" for p in
                                      ("scale", "bias", "mean", "var")], [f"{name}.bn"], name=f"{name}.bn"))
        if not relu:
            return f"{name}.bn"
        nodes.append(helper.make_node("Relu", [f"{name}.bn"], [f"{name}.relu"], name=f"{name}.relu"))
        return f"{name}.relu"

    x = conv_bn("x", "stem", 3, 64, 7, 2)
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], name="pool", kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4))
    x, cin = "pool", 64
    for stage, cout in enumerate([64, 128, 256, 512]):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            name = f"layer{stage + 1}.{block}"
            h = conv_bn(x, f"{name}.a", cin, cout, 3, stride)
            h = conv_bn(h, f"{name}.b", cout, cout, 3, 1, relu=False)
            shortcut = conv_bn(x, f"{name}.down", cin, cout, 1, stride, relu=False) if stride != 1 or cin != cout else x
            nodes.append(helper.make_node("Add", [h, shortcut], [f"{name}.add"], name=f"{name}.add"))
            nodes.append(helper.make_node("Relu", [f"{name}.add"], [f"{name}.out"], name=f"{name}.out"))
            x, cin = f"{name}.out", cout
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"))
    init.append(numpy_helper.from_array((RNG.standard_normal((1000, 512)) * 0.05).astype(np.float32), "fc.w"))
    nodes.append(helper.make_node("Gemm", ["flat", "fc.w"], ["logits"], name="fc", transB=1))
    return save(nodes, "resnet18", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 224, 224])],
                [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])], init, directory)


def run_report(model, directory, *flags):
    report = directory / (model.stem + "".join(flags).replace("-", "_"))
    subprocess.run([NPUSIM, "run", model, "--arch", "edge", "--timing-only", "--report", report, *flags],
                   check=True, capture_output=True)
    return json.loads((report / "report.json").read_text())


def layer_efficiency(report):
    """MACs at the array's peak over the cycles of every op the layer became."""
    peak = report["roofline"]["peak_macs_per_cycle"]
    macs = sum(op["macs"] for op in report["ops"])
    return macs / peak / report["total_cycles"]


def compile_seconds(model, directory):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run([NPUSIM, "compile", model, "-o", directory / "out.npuart"], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    with tempfile.TemporaryDirectory(prefix="npusim_bench_") as tmp:
        directory = Path(tmp)
        print("generated code on edge (timing-only simulation), efficiency against the roofline")
        for m, k, n in [(512, 512, 512), (1024, 1024, 1024)]:
            report = run_report(gemm_model(directory, m, k, n), directory)
            label = f"fp32 GEMM {m}x{k}x{n}"
            print(f"  {label:<36} {layer_efficiency(report):6.1%}  ({report['total_cycles']} cycles)")
        for channels, size, out, kernel in [(64, 56, 64, 3), (128, 28, 128, 3), (256, 28, 256, 1)]:
            report = run_report(conv_model(directory, channels, size, out, kernel), directory)
            label = f"fp32 conv {kernel}x{kernel} {channels}->{out} at {size}x{size}"
            print(f"  {label:<36} {layer_efficiency(report):6.1%}  ({report['total_cycles']} cycles, "
                  f"{len(report['ops'])} ops)")
        block = BUILD / "examples" / "transformer_block.onnx"
        fused, apart = run_report(block, directory), run_report(block, directory, "--no-fusion")
        label = "transformer block (S=256, D=512)"
        print(f"  {label:<36} {fused['roofline']['efficiency']:6.1%}  of its whole-block roofline bound "
              f"({fused['total_cycles']} cycles)")
        dram = [r["dram"]["bytes_read"] + r["dram"]["bytes_written"] for r in (fused, apart)]
        print(f"fusion on the transformer block: {dram[0] / 2**20:.1f} MiB of DRAM traffic fused, "
              f"{dram[1] / 2**20:.1f} MiB with --no-fusion (ratio {dram[0] / dram[1]:.3f}); "
              f"cycles {fused['total_cycles']} vs {apart['total_cycles']}")
        print(f"compile time, median of {RUNS} runs")
        print(f"  {'transformer block':<20} {compile_seconds(block, directory):6.2f} s")
        print(f"  {'ResNet-18 (224x224)':<20} {compile_seconds(resnet18_model(directory), directory):6.2f} s")


if __name__ == "__main__":
    main()
