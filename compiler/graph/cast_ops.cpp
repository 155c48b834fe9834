// Cast and CastLike: elements converted to another dtype (Cast's 'to' attribute, CastLike's
// second input). Floats round to nearest even into narrower float formats; floats become
// integers by truncation toward zero, then wrap to the integer's width as numpy's astype does
// (NaN, infinities and values beyond int64, which numpy leaves undefined, become int64's minimum
// before wrapping); to bool, anything non-zero (NaN included) becomes true.
#include <cstdint>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/onnx_element_types.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

DType castTarget(const Node& node) {
    if (!node.attributes.contains("to")) opError(node, "attribute 'to' is missing");
    const int64_t code = node.intAttr("to", 0);
    const std::optional<DType> dtype = dtypeOfOnnxElementType(code);
    if (!dtype) {
        opError(node,
                "cannot cast to " + onnxElementTypeName(code) + ", which npusim does not support");
    }
    return *dtype;
}

/// Truncation toward zero into int64; int64's minimum for what does not fit.
int64_t truncateToInteger(double value) {
    constexpr double kLimit = 0x1p63;
    if (!(value > -kLimit && value < kLimit)) return INT64_MIN;
    return static_cast<int64_t>(value);
}

Tensor cast(const Tensor& input, DType to) {
    if (input.dtype == to) return input;
    if (isFloat(to)) return floatTensor(to, input.shape, floatValues(input));
    if (!isFloat(input.dtype)) return integerTensor(to, input.shape, integerValues(input));
    const std::vector<double> values = floatValues(input);
    std::vector<int64_t> integers(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        integers[i] = to == DType::Bool ? values[i] != 0 : truncateToInteger(values[i]);
    }
    return integerTensor(to, input.shape, integers);
}

}  // namespace

void inferCast(Graph& graph, const Node& node) {
    checkArity(graph, node);
    setOutput(graph, node, castTarget(node), graph.value(node.inputs[0]).shape);
}

std::vector<Tensor> interpretCast(const Node& node, std::span<const Tensor* const> inputs) {
    return {cast(*inputs[0], castTarget(node))};
}

void inferCastLike(Graph& graph, const Node& node) {
    checkArity(graph, node);
    setOutput(graph, node, graph.value(node.inputs[1]).dtype, graph.value(node.inputs[0]).shape);
}

std::vector<Tensor> interpretCastLike(const Node&, std::span<const Tensor* const> inputs) {
    return {cast(*inputs[0], inputs[1]->dtype)};
}

}  // namespace npusim::compiler::ops
