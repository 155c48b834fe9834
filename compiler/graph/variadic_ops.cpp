// Max, Min, Sum and Mean: elementwise over one or more inputs with numpy broadcasting, folded
// left to right and rounded to the dtype after each step, as ONNX's reference (numpy) does.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// inputs[0] op inputs[1] op ... with `floatOp` (double) or `integerOp` (int64) by dtype.
template <class FloatOp, class IntegerOp>
Tensor fold(const Node& node, std::span<const Tensor* const> inputs, FloatOp floatOp,
            IntegerOp integerOp) {
    Tensor result = *inputs[0];
    for (size_t i = 1; i < inputs.size(); ++i) {
        result = broadcastBinary(node, result, *inputs[i], floatOp, integerOp);
    }
    return result;
}

/// The larger (`larger` = true) or smaller of two floats; NaN when either is NaN (numpy's
/// maximum and minimum).
double extremum(double a, double b, bool larger) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
    return larger ? std::max(a, b) : std::min(a, b);
}

double add(double a, double b) {
    return a + b;
}

}  // namespace

void inferVariadic(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const bool floatOnly = node.kind == OpKind::Sum || node.kind == OpKind::Mean;
    const Value& first = graph.value(node.inputs[0]);
    requireDType(node, "data_0", first.dtype, floatOnly ? kFloatDTypes : kNumericDTypes);
    Shape shape = first.shape;
    for (size_t i = 1; i < node.inputs.size(); ++i) {
        const Value& input = graph.value(node.inputs[i]);
        if (input.dtype != first.dtype) {
            opError(node, "data_" + std::to_string(i) + " is " +
                              std::string(dtypeName(input.dtype)) + " but data_0 is " +
                              std::string(dtypeName(first.dtype)) +
                              "; all inputs must have the same dtype");
        }
        shape = broadcastShapes(node, shape, input.shape);
    }
    setOutput(graph, node, first.dtype, shape);
}

std::vector<Tensor> interpretMax(const Node& node, std::span<const Tensor* const> inputs) {
    return {fold(
        node, inputs, [](double a, double b) { return extremum(a, b, true); },
        [](int64_t a, int64_t b) { return std::max(a, b); })};
}

std::vector<Tensor> interpretMin(const Node& node, std::span<const Tensor* const> inputs) {
    return {fold(
        node, inputs, [](double a, double b) { return extremum(a, b, false); },
        [](int64_t a, int64_t b) { return std::min(a, b); })};
}

std::vector<Tensor> interpretSum(const Node& node, std::span<const Tensor* const> inputs) {
    return {fold(node, inputs, add, wrappingAdd)};
}

std::vector<Tensor> interpretMean(const Node& node, std::span<const Tensor* const> inputs) {
    const auto count = static_cast<double>(inputs.size());
    return {mapFloat(fold(node, inputs, add, wrappingAdd),
                     [count](double sum) { return sum / count; })};
}

}  // namespace npusim::compiler::ops
