// QuantizeLinear and DequantizeLinear on the vector unit. With constant parameters the quantize
// and dequantize functions take the scale and zero point as immediates, so a per-axis
// quantisation runs one kernel per slice of the axis, each over a strided view of its slice.
// Parameters given at run time are operands, broadcast along the axis, and quantising is
// spelled out in fp32: divide, round half to even, add the zero point, saturate, convert.
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/tiling/vector_lowering.h"

namespace npusim::compiler {
namespace {

using isa::VectorOp;

/// The kernel of one slice (or of the whole tensor: count 1).
VectorProblem sliceProblem(const Graph& graph, const Node& node, uint32_t opId, int64_t axis, int64_t slice,
                           float scale, int32_t zeroPoint) {
    const Value& x = graph.value(node.inputs[0]);
    const DType out = graph.value(node.outputs[0]).dtype;
    IndexSpace space = denseSpace(x.shape);
    int64_t offset = 0;
    if (axis >= 0) {
        offset = slice * ops::rowMajorStrides(x.shape)[static_cast<size_t>(axis)];
        space.dims[static_cast<size_t>(axis)] = 1;
    }
    space.add(space.strides[0]);
    const bool quantize = node.kind == OpKind::QuantizeLinear;
    return stridedProblem(graph, opId, quantize ? "quantize" : "dequantize", std::move(space),
                          {node.outputs[0], offset}, std::vector<ViewOrigin>{{node.inputs[0], offset}},
                          [=](VectorBuilder& b, std::span<const Operand> in) {
                              uint32_t value = *in[0].buffer;
                              const auto zero = static_cast<uint32_t>(zeroPoint);
                              if (!quantize) return b.immediate(VectorOp::Dequantize, value, fp32Bits(scale), zero, DType::Fp32);
                              if (b.dtypeOf(value) != DType::Fp32) value = b.unary(VectorOp::Cast, value, DType::Fp32);
                              return b.immediate(VectorOp::Quantize, value, fp32Bits(scale), zero, out);
                          });
}

/// 1.5 * 2^23: adding and subtracting it rounds an fp32 of magnitude below 2^22 to an integer,
/// half to even (the spacing of fp32 values there is 1).
constexpr float kRoundingBias = 12582912.0f;

/// The kernel with the scale and zero point read as operands.
VectorProblem runtimeProblem(const Graph& graph, const Node& node, uint32_t opId) {
    const Shape& x = graph.value(node.inputs[0]).shape;
    const Shape& scale = graph.value(node.inputs[1]).shape;
    const bool perAxis = elementCount(scale) != 1;
    Shape along(x.size(), 1);  // a per-axis parameter broadcasts along the axis
    if (perAxis) {
        along[static_cast<size_t>(ops::normalizeAxis(node, node.intAttr("axis", 1), static_cast<int64_t>(x.size())))] =
            elementCount(scale);
    }
    std::vector<ValueId> inputs = {node.inputs[0], node.inputs[1]};
    std::vector<Shape> shapes = {x, perAxis ? along : scale};
    if (node.inputs.size() > 2 && node.inputs[2] != kNoValue) {
        inputs.push_back(node.inputs[2]);
        shapes.push_back(perAxis ? along : graph.value(node.inputs[2]).shape);
    }
    const DType out = graph.value(node.outputs[0]).dtype;
    const bool quantize = node.kind == OpKind::QuantizeLinear;
    return elementwiseProblem(
        graph, opId, quantize ? "quantize" : "dequantize", inputs, node.outputs[0],
        [=](VectorBuilder& b, std::span<const Operand> in) {
            auto asFloat = [&](uint32_t buffer) {
                return b.dtypeOf(buffer) == DType::Fp32 ? buffer : b.unary(VectorOp::Cast, buffer, DType::Fp32);
            };
            const uint32_t x = asFloat(*in[0].buffer), s = *in[1].buffer;
            const std::optional<uint32_t> zero = in.size() > 2 ? std::optional(asFloat(*in[2].buffer)) : std::nullopt;
            if (!quantize) return b.binary(VectorOp::Mul, zero ? b.binary(VectorOp::Sub, x, *zero) : x, s);
            uint32_t v = b.binary(VectorOp::Div, x, s);
            v = b.scalar(VectorOp::Sub, b.scalar(VectorOp::Add, v, kRoundingBias), kRoundingBias);
            if (zero) v = b.binary(VectorOp::Add, v, *zero);
            const bool int8 = out == DType::Int8;
            v = b.immediate(VectorOp::Clip, v, fp32Bits(int8 ? -128.0f : 0.0f), fp32Bits(int8 ? 127.0f : 255.0f));
            return b.immediate(VectorOp::Requantize, b.unary(VectorOp::Cast, v, DType::Int32), fp32Bits(1.0f), 0, out);
        },
        shapes, false);
}

}  // namespace

std::vector<VectorProblem> quantizeProblemsFor(const Graph& graph, const Node& node, uint32_t opId) {
    if (node.kind != OpKind::QuantizeLinear && node.kind != OpKind::DequantizeLinear) return {};
    const Value& scale = graph.value(node.inputs[1]);
    const Value* zeroPoint = node.inputs.size() > 2 && node.inputs[2] != kNoValue ? &graph.value(node.inputs[2]) : nullptr;
    if (!scale.constant || (zeroPoint && !zeroPoint->constant)) return {runtimeProblem(graph, node, opId)};
    const int64_t slices = elementCount(scale.shape);
    const Shape& x = graph.value(node.inputs[0]).shape;
    const int64_t axis = slices == 1 ? -1 : ops::normalizeAxis(node, node.intAttr("axis", 1), static_cast<int64_t>(x.size()));
    std::vector<VectorProblem> problems;
    for (int64_t slice = 0; slice < slices; ++slice) {
        const auto zero = zeroPoint ? static_cast<int32_t>(zeroPoint->constant->valueAt(slices == 1 ? 0 : slice)) : 0;
        problems.push_back(sliceProblem(graph, node, opId, axis, slice, static_cast<float>(scale.constant->valueAt(slice)), zero));
    }
    return problems;
}

}  // namespace npusim::compiler
