// Conv, ConvInteger and QLinearConv: grouped N-D convolution on fp32 (plus an optional bias), on
// int8/uint8 with zero points and int32 results, and on quantized int8/uint8 requantized to the
// output's scale and zero point. Padding contributes zero after the zero point is removed.
#include <string>

#include "compiler/graph/convolution.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/quantization.h"

namespace npusim::compiler::ops {
namespace {

/// The dims of the convolution, the zero points checked: x's per tensor, w's per tensor or per
/// output channel.
ConvShape integerConvShape(const Node& node, const Shape& x, const Shape& w,
                           std::string_view xZeroName, const Shape* xZero,
                           std::string_view wZeroName, const Shape* wZero) {
    const ConvShape shape = convShape(node, x, w);
    if (xZero) checkQuantParam(node, xZeroName, *xZero);
    if (wZero) checkQuantParam(node, wZeroName, *wZero, shape.outChannels, "the output channels");
    return shape;
}

/// The elements of an int8/uint8 tensor as int32 with the zero point removed; element i uses
/// zero point slice i / sliceSize (per tensor when the zero point has one element).
std::vector<int32_t> centered(const Tensor& tensor, const Tensor* zeroPoint, int64_t sliceSize) {
    std::vector<int32_t> values(static_cast<size_t>(tensor.elementCount()));
    for (int64_t i = 0; i < tensor.elementCount(); ++i) {
        const auto offset =
            zeroPoint ? static_cast<int32_t>(quantParamAt(*zeroPoint, i / sliceSize)) : 0;
        values[i] = static_cast<int32_t>(tensor.valueAt(i)) - offset;
    }
    return values;
}

/// Elements of W per output channel.
int64_t filterSize(const Shape& w) {
    return elementCount(Shape(w.begin() + 1, w.end()));
}

/// The int32 accumulators of an integer convolution, seeded with `bias` when present.
Tensor integerConvolution(const ConvShape& shape, const Tensor& x, const Tensor* xZero,
                          const Tensor& w, const Tensor* wZero, const Tensor* bias) {
    const std::vector<int32_t> xValues = centered(x, xZero, x.elementCount());
    const std::vector<int32_t> wValues = centered(w, wZero, filterSize(w.shape));
    Tensor out = Tensor::zeros(DType::Int32, shape.output);
    const std::span<int32_t> y = out.as<int32_t>();
    if (bias) seedWithBias(y, bias->as<int32_t>(), elementCount(shape.window.output));
    convolve(shape, std::span<const int32_t>(xValues), std::span<const int32_t>(wValues), y);
    return out;
}

}  // namespace

void inferConv(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& w = graph.value(node.inputs[1]);
    const Value* bias = optionalInput(graph, node, 2);
    requireDType(node, "X", x.dtype, {DType::Fp32});
    requireDType(node, "W", w.dtype, {DType::Fp32});
    const ConvShape shape = convShape(node, x.shape, w.shape);
    if (bias) {
        requireDType(node, "B", bias->dtype, {DType::Fp32});
        checkConvBias(node, bias->shape, shape.outChannels);
    }
    setOutput(graph, node, DType::Fp32, shape.output);
}

std::vector<Tensor> interpretConv(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Tensor& w = *inputs[1];
    const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
    const ConvShape shape = convShape(node, x.shape, w.shape);
    Tensor out = Tensor::zeros(DType::Fp32, shape.output);
    const std::span<float> y = out.as<float>();
    if (bias) {
        checkConvBias(node, bias->shape, shape.outChannels);
        seedWithBias(y, bias->as<float>(), elementCount(shape.window.output));
    }
    convolve(shape, x.as<float>(), w.as<float>(), y);
    return {std::move(out)};
}

void inferConvInteger(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& w = graph.value(node.inputs[1]);
    const Value* xZero = optionalInput(graph, node, 2);
    const Value* wZero = optionalInput(graph, node, 3);
    requireDType(node, "x", x.dtype, {DType::Int8, DType::UInt8});
    requireDType(node, "w", w.dtype, {DType::Int8, DType::UInt8});
    if (xZero) checkZeroPointDType(node, "x_zero_point", xZero->dtype, "x", x.dtype);
    if (wZero) checkZeroPointDType(node, "w_zero_point", wZero->dtype, "w", w.dtype);
    const ConvShape shape =
        integerConvShape(node, x.shape, w.shape, "x_zero_point", xZero ? &xZero->shape : nullptr,
                         "w_zero_point", wZero ? &wZero->shape : nullptr);
    setOutput(graph, node, DType::Int32, shape.output);
}

std::vector<Tensor> interpretConvInteger(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Tensor& w = *inputs[1];
    const Tensor* xZero = inputs.size() > 2 ? inputs[2] : nullptr;
    const Tensor* wZero = inputs.size() > 3 ? inputs[3] : nullptr;
    const ConvShape shape =
        integerConvShape(node, x.shape, w.shape, "x_zero_point", xZero ? &xZero->shape : nullptr,
                         "w_zero_point", wZero ? &wZero->shape : nullptr);
    return {integerConvolution(shape, x, xZero, w, wZero, nullptr)};
}

void inferQLinearConv(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const auto input = [&](size_t index) -> const Value& {
        return graph.value(node.inputs[index]);
    };
    const Value &x = input(0), &xScale = input(1), &xZero = input(2);
    const Value &w = input(3), &wScale = input(4), &wZero = input(5);
    const Value &yScale = input(6), &yZero = input(7);
    const Value* bias = optionalInput(graph, node, 8);
    requireDType(node, "x", x.dtype, {DType::Int8, DType::UInt8});
    requireDType(node, "w", w.dtype, {DType::Int8, DType::UInt8});
    requireDType(node, "y_zero_point", yZero.dtype, {DType::Int8, DType::UInt8});
    checkZeroPointDType(node, "x_zero_point", xZero.dtype, "x", x.dtype);
    checkZeroPointDType(node, "w_zero_point", wZero.dtype, "w", w.dtype);
    requireDType(node, "x_scale", xScale.dtype, {DType::Fp32});
    requireDType(node, "w_scale", wScale.dtype, {DType::Fp32});
    requireDType(node, "y_scale", yScale.dtype, {DType::Fp32});
    const ConvShape shape = integerConvShape(node, x.shape, w.shape, "x_zero_point", &xZero.shape,
                                             "w_zero_point", &wZero.shape);
    checkQuantParam(node, "x_scale", xScale.shape);
    checkQuantParam(node, "w_scale", wScale.shape, shape.outChannels, "the output channels");
    checkQuantParam(node, "y_scale", yScale.shape);
    checkQuantParam(node, "y_zero_point", yZero.shape);
    if (bias) {
        requireDType(node, "B", bias->dtype, {DType::Int32});
        checkConvBias(node, bias->shape, shape.outChannels);
    }
    setOutput(graph, node, yZero.dtype, shape.output);
}

std::vector<Tensor> interpretQLinearConv(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor &x = *inputs[0], &xScale = *inputs[1], &xZero = *inputs[2];
    const Tensor &w = *inputs[3], &wScale = *inputs[4], &wZero = *inputs[5];
    const Tensor &yScale = *inputs[6], &yZero = *inputs[7];
    const Tensor* bias = inputs.size() > 8 ? inputs[8] : nullptr;
    const ConvShape shape = integerConvShape(node, x.shape, w.shape, "x_zero_point", &xZero.shape,
                                             "w_zero_point", &wZero.shape);
    if (bias) checkConvBias(node, bias->shape, shape.outChannels);
    const Tensor sums = integerConvolution(shape, x, &xZero, w, &wZero, bias);

    // Each output channel's accumulator is rescaled by x_scale * w_scale[m] / y_scale, in fp32.
    const auto offset = static_cast<int32_t>(yZero.valueAt(0));
    Tensor out = Tensor::zeros(yZero.dtype, shape.output);
    const std::span<const int32_t> acc = sums.as<int32_t>();
    const int64_t plane = elementCount(shape.window.output);
    for (int64_t i = 0; i < out.elementCount(); ++i) {
        const int64_t channel = (i / plane) % shape.outChannels;
        const float multiplier = scaleAt(xScale, 0) * scaleAt(wScale, channel) / scaleAt(yScale, 0);
        storeQuantized(out, i,
                       quantizeRounded(static_cast<float>(acc[i]) * multiplier, offset, out.dtype));
    }
    return {std::move(out)};
}

}  // namespace npusim::compiler::ops
