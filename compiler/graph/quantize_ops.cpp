// QuantizeLinear and DequantizeLinear: fp32 (or int32) to int8/uint8 and back, per tensor or per
// slice along an axis. y = saturate(round_half_even(x / y_scale) + y_zero_point) and
// y = (x - x_zero_point) * x_scale. DynamicQuantizeLinear derives a uint8 scale and zero point
// from the range of x, widened to include 0.
#include <algorithm>
#include <string>

#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/quantization.h"

namespace npusim::compiler::ops {
namespace {

/// Which scale and zero point element each element of x uses: element i reads slice
/// (i / stride) % count; a per-tensor parameter has one slice.
struct QuantSlices {
    int64_t stride = 1, count = 1;
};

/// The slices of x along the node's axis (default 1) when the scale has more than one element.
QuantSlices quantSlices(const Node& node, const Shape& x, std::string_view scaleName,
                        const Shape& scale, std::string_view zeroPointName,
                        const Shape* zeroPoint) {
    if (elementCount(scale) == 1 && scale.size() <= 1) {
        if (zeroPoint) checkQuantParam(node, zeroPointName, *zeroPoint);
        return {};
    }
    const auto rank = static_cast<int64_t>(x.size());
    const int64_t axis = normalizeAxis(node, node.intAttr("axis", 1), rank);
    QuantSlices slices;
    slices.count = x[axis];
    for (int64_t i = axis + 1; i < rank; ++i) slices.stride *= x[i];
    const std::string sliceText = "axis " + std::to_string(axis) + " of x";
    checkQuantParam(node, scaleName, scale, slices.count, sliceText);
    if (zeroPoint) checkQuantParam(node, zeroPointName, *zeroPoint, slices.count, sliceText);
    return slices;
}

}  // namespace

void inferQuantizeLinear(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& scale = graph.value(node.inputs[1]);
    const Value* zeroPoint = optionalInput(graph, node, 2);
    requireDType(node, "x", x.dtype, {DType::Fp32, DType::Int32});
    requireDType(node, "y_scale", scale.dtype, {DType::Fp32});
    if (zeroPoint) {
        requireDType(node, "y_zero_point", zeroPoint->dtype, {DType::Int8, DType::UInt8});
    }
    quantSlices(node, x.shape, "y_scale", scale.shape, "y_zero_point",
                zeroPoint ? &zeroPoint->shape : nullptr);
    setOutput(graph, node, zeroPoint ? zeroPoint->dtype : DType::UInt8, x.shape);
}

std::vector<Tensor> interpretQuantizeLinear(const Node& node,
                                            std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Tensor& scale = *inputs[1];
    const Tensor* zeroPoint = inputs.size() > 2 ? inputs[2] : nullptr;
    const QuantSlices slices = quantSlices(node, x.shape, "y_scale", scale.shape, "y_zero_point",
                                           zeroPoint ? &zeroPoint->shape : nullptr);
    Tensor out = Tensor::zeros(zeroPoint ? zeroPoint->dtype : DType::UInt8, x.shape);
    for (int64_t i = 0; i < x.elementCount(); ++i) {
        const int64_t slice = (i / slices.stride) % slices.count;
        const auto offset = zeroPoint ? static_cast<int32_t>(quantParamAt(*zeroPoint, slice)) : 0;
        const float value = static_cast<float>(x.valueAt(i)) / scaleAt(scale, slice);
        storeQuantized(out, i, quantizeRounded(value, offset, out.dtype));
    }
    return {std::move(out)};
}

void inferDequantizeLinear(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& scale = graph.value(node.inputs[1]);
    const Value* zeroPoint = optionalInput(graph, node, 2);
    requireDType(node, "x", x.dtype, {DType::Int8, DType::UInt8, DType::Int32});
    requireDType(node, "x_scale", scale.dtype, {DType::Fp32});
    if (zeroPoint) checkZeroPointDType(node, "x_zero_point", zeroPoint->dtype, "x", x.dtype);
    quantSlices(node, x.shape, "x_scale", scale.shape, "x_zero_point",
                zeroPoint ? &zeroPoint->shape : nullptr);
    setOutput(graph, node, DType::Fp32, x.shape);
}

std::vector<Tensor> interpretDequantizeLinear(const Node& node,
                                              std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Tensor& scale = *inputs[1];
    const Tensor* zeroPoint = inputs.size() > 2 ? inputs[2] : nullptr;
    const QuantSlices slices = quantSlices(node, x.shape, "x_scale", scale.shape, "x_zero_point",
                                           zeroPoint ? &zeroPoint->shape : nullptr);
    Tensor out = Tensor::zeros(DType::Fp32, x.shape);
    const std::span<float> y = out.as<float>();
    for (int64_t i = 0; i < x.elementCount(); ++i) {
        const int64_t slice = (i / slices.stride) % slices.count;
        const auto offset = zeroPoint ? static_cast<int64_t>(quantParamAt(*zeroPoint, slice)) : 0;
        if (x.dtype == DType::Int32 && offset != 0) {
            opError(node, "an int32 x is dequantized without a zero point, but x_zero_point is " +
                              std::to_string(offset));
        }
        const auto centered = static_cast<int64_t>(x.valueAt(i)) - offset;
        y[i] = static_cast<float>(centered) * scaleAt(scale, slice);
    }
    return {std::move(out)};
}

void inferDynamicQuantizeLinear(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "x", x.dtype, {DType::Fp32});
    setOutput(graph, node, DType::UInt8, x.shape);
    Value& scale = graph.value(node.outputs[1]);
    scale.dtype = DType::Fp32;
    scale.shape = {};
    Value& zeroPoint = graph.value(node.outputs[2]);
    zeroPoint.dtype = DType::UInt8;
    zeroPoint.shape = {};
}

std::vector<Tensor> interpretDynamicQuantizeLinear(const Node& node,
                                                   std::span<const Tensor* const> inputs) {
    const std::span<const float> x = inputs[0]->as<float>();
    if (x.empty()) opError(node, "x is empty, so it has no range to quantize");
    // The range [min(x, 0), max(x, 0)] maps onto [0, 255], in fp32 as ONNX's function body
    // computes it.
    const float low = std::min(0.0F, *std::min_element(x.begin(), x.end()));
    const float high = std::max(0.0F, *std::max_element(x.begin(), x.end()));
    const float scale = (high - low) / 255.0F;
    const int32_t offset = quantizeRounded(0.0F - low / scale, 0, DType::UInt8);
    std::vector<Tensor> outputs{Tensor::zeros(DType::UInt8, inputs[0]->shape),
                                Tensor::zeros(DType::Fp32, {}), Tensor::zeros(DType::UInt8, {})};
    for (size_t i = 0; i < x.size(); ++i) {
        storeQuantized(outputs[0], static_cast<int64_t>(i),
                       quantizeRounded(x[i] / scale, offset, DType::UInt8));
    }
    outputs[1].as<float>()[0] = scale;
    storeQuantized(outputs[2], 0, offset);
    return outputs;
}

}  // namespace npusim::compiler::ops
