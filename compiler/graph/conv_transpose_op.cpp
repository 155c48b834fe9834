// ConvTranspose: the gradient of a grouped N-D convolution with respect to its input. Each input
// element scatters X[n, c, i] * W[c, m, k] to output coordinate i * stride - padBegin +
// k * dilation; the output size comes from the pads, or the pads from output_shape or auto_pad.
#include <algorithm>
#include <string>

#include "compiler/graph/conv_transpose.h"
#include "compiler/graph/convolution.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/window_geometry.h"

namespace npusim::compiler::ops {
namespace {

/// X is [N, C, in...], W is [C, M/group, kernel...] and Y is [N, M, out...].
struct ConvTransposeShape {
    int64_t batch = 0, inChannels = 0, outChannels = 0, group = 1;
    /// The scatter as a window walk with the roles swapped: the walk's positions are X's spatial
    /// positions (`output`) and its taps land in Y's spatial dims (`input`).
    WindowGeometry scatter;
    Shape output;
};

std::vector<int64_t> spatialAttr(const Node& node, const std::string& key, size_t rank,
                                 int64_t fallback, int64_t minimum) {
    const std::vector<int64_t> values =
        intListAttr(node, key, std::vector<int64_t>(rank, fallback));
    if (values.size() != rank ||
        std::any_of(values.begin(), values.end(), [&](int64_t v) { return v < minimum; })) {
        opError(node, key + " " + shapeString(values) + " must have " + std::to_string(rank) +
                          " values of at least " + std::to_string(minimum));
    }
    return values;
}

ConvTransposeShape convTransposeShape(const Node& node, const Shape& x, const Shape& w) {
    if (x.size() < 3) {
        opError(node, "X must be [N, C, spatial...] with at least one spatial dim, got " +
                          shapeString(x));
    }
    if (w.size() != x.size()) {
        opError(node, "W " + shapeString(w) + " must have the rank of X " + shapeString(x));
    }
    ConvTransposeShape shape;
    shape.batch = x[0];
    shape.inChannels = x[1];
    shape.group = node.intAttr("group", 1);
    if (shape.group < 1) {
        opError(node, "group " + std::to_string(shape.group) + " must be positive");
    }
    if (w[0] != x[1] || x[1] % shape.group != 0) {
        opError(node, "X is " + shapeString(x) + " and W is " + shapeString(w) + " with group " +
                          std::to_string(shape.group) +
                          ": W's dim 0 must equal X's channels, and group must divide them");
    }
    shape.outChannels = w[1] * shape.group;

    const size_t rank = x.size() - 2;
    const Shape in(x.begin() + 2, x.end());
    const Shape kernel(w.begin() + 2, w.end());
    if (std::any_of(kernel.begin(), kernel.end(), [](int64_t dim) { return dim < 1; })) {
        opError(node, "W " + shapeString(w) + " has an empty kernel");
    }
    const Shape kernelAttribute = intListAttr(node, "kernel_shape", kernel);
    if (kernelAttribute != kernel) {
        opError(node, "kernel_shape " + shapeString(kernelAttribute) +
                          " differs from W's spatial dims " + shapeString(kernel));
    }
    WindowGeometry& scatter = shape.scatter;
    scatter.output = in;
    scatter.kernel = kernel;
    scatter.strides = spatialAttr(node, "strides", rank, 1, 1);
    scatter.dilations = spatialAttr(node, "dilations", rank, 1, 1);
    const std::vector<int64_t> outputPadding = spatialAttr(node, "output_padding", rank, 0, 0);
    const std::vector<int64_t> pads = spatialAttr(node, "pads", 2 * rank, 0, 0);
    const std::vector<int64_t> outputShape = intListAttr(node, "output_shape");
    if (!outputShape.empty() && outputShape.size() != rank) {
        opError(node, "output_shape " + shapeString(outputShape) + " must have " +
                          std::to_string(rank) + " values, one per spatial dim");
    }
    const AutoPad autoPad = autoPadAttr(node);
    const bool same = autoPad == AutoPad::SameUpper || autoPad == AutoPad::SameLower;

    for (size_t i = 0; i < rank; ++i) {
        const int64_t full = scatter.strides[i] * (in[i] - 1) + outputPadding[i] +
                             (kernel[i] - 1) * scatter.dilations[i] + 1;
        int64_t begin = autoPad == AutoPad::NotSet ? pads[i] : 0;
        int64_t end = autoPad == AutoPad::NotSet ? pads[rank + i] : 0;
        if (!outputShape.empty() || same) {
            // output_shape (or SAME's in * stride) fixes the size; the pads are what it leaves,
            // the odd one at the end for SAME_UPPER and at the beginning otherwise. A negative
            // total (an output larger than the scatter covers) splits as Python's // splits it.
            const int64_t size = outputShape.empty() ? in[i] * scatter.strides[i] : outputShape[i];
            const int64_t total = full - size;
            begin = autoPad == AutoPad::SameUpper ? floorDiv(total, 2) : total - floorDiv(total, 2);
            end = total - begin;
        }
        scatter.padBegin.push_back(begin);
        scatter.padEnd.push_back(end);
        scatter.input.push_back(full - begin - end);
        if (scatter.input.back() < 1) {
            opError(node, "the output would have " + std::to_string(scatter.input.back()) +
                              " elements in spatial dim " + std::to_string(i) + " (X " +
                              shapeString(x) + ", W " + shapeString(w) + ", pads " +
                              shapeString(pads) + ")");
        }
    }
    shape.output = {shape.batch, shape.outChannels};
    shape.output.insert(shape.output.end(), scatter.input.begin(), scatter.input.end());
    return shape;
}

}  // namespace

void inferConvTranspose(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& w = graph.value(node.inputs[1]);
    const Value* bias = optionalInput(graph, node, 2);
    requireDType(node, "X", x.dtype, {DType::Fp32});
    requireDType(node, "W", w.dtype, {DType::Fp32});
    const ConvTransposeShape shape = convTransposeShape(node, x.shape, w.shape);
    if (bias) {
        requireDType(node, "B", bias->dtype, {DType::Fp32});
        checkConvBias(node, bias->shape, shape.outChannels);
    }
    setOutput(graph, node, DType::Fp32, shape.output);
}

std::vector<Tensor> interpretConvTranspose(const Node& node,
                                           std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Tensor& w = *inputs[1];
    const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
    const ConvTransposeShape shape = convTransposeShape(node, x.shape, w.shape);
    Tensor out = Tensor::zeros(DType::Fp32, shape.output);
    const std::span<float> y = out.as<float>();
    const std::span<const float> xData = x.as<float>(), wData = w.as<float>();
    const int64_t inSize = elementCount(shape.scatter.output);
    const int64_t outSize = elementCount(shape.scatter.input);
    const int64_t kernelSize = elementCount(shape.scatter.kernel);
    if (bias) {
        checkConvBias(node, bias->shape, shape.outChannels);
        seedWithBias(y, bias->as<float>(), outSize);
    }
    const int64_t groupIn = shape.inChannels / shape.group;
    const int64_t groupOut = shape.outChannels / shape.group;
    WindowTaps scatterTaps(shape.scatter);
    for (int64_t position = 0; position < inSize; ++position) {
        const std::span<const WindowTap> taps = scatterTaps.at(position);
        for (int64_t n = 0; n < shape.batch; ++n) {
            for (int64_t c = 0; c < shape.inChannels; ++c) {
                const float value = xData[(n * shape.inChannels + c) * inSize + position];
                for (int64_t m = 0; m < groupOut; ++m) {
                    const int64_t outChannel = (c / groupIn) * groupOut + m;
                    float* yPlane = y.data() + (n * shape.outChannels + outChannel) * outSize;
                    const float* wPlane = wData.data() + (c * groupOut + m) * kernelSize;
                    for (const WindowTap& tap : taps)
                        yPlane[tap.input] += value * wPlane[tap.kernel];
                }
            }
        }
    }
    return {std::move(out)};
}

}  // namespace npusim::compiler::ops

namespace npusim::compiler {

ConvTransposePads convTransposePads(const Node& node, const Shape& x, const Shape& w) {
    const ops::ConvTransposeShape shape = ops::convTransposeShape(node, x, w);
    return {shape.scatter.padBegin, shape.scatter.padEnd};
}

}  // namespace npusim::compiler
