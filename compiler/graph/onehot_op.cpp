// OneHot: each index becomes a vector of `depth` elements along a new axis, values[1] ("on") at
// the index and values[0] ("off") elsewhere; negative indices count from depth, and an index
// outside [-depth, depth) gives an all-off vector.
#include <cmath>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// Depth is any number; a float depth is truncated, as ONNX's reference does.
int64_t depthOf(const Node& node, const Tensor& depth) {
    if (depth.elementCount() != 1) {
        opError(node, "depth must hold one element, got " + shapeString(depth.shape));
    }
    const double value = std::trunc(depth.valueAt(0));
    if (!(value >= 1)) opError(node, "depth must be at least 1, got " + std::to_string(value));
    return static_cast<int64_t>(value);
}

int64_t oneHotAxis(const Node& node, const Shape& indices) {
    const auto rank = static_cast<int64_t>(indices.size()) + 1;
    return normalizeAxis(node, node.intAttr("axis", -1), rank);
}

Shape oneHotShape(const Node& node, const Shape& indices, int64_t depth) {
    Shape out = indices;
    out.insert(out.begin() + oneHotAxis(node, indices), depth);
    return out;
}

void checkValues(const Node& node, const Shape& values) {
    if (elementCount(values) != 2) {
        opError(node, "values must hold two elements (off, on), got " + shapeString(values));
    }
}

}  // namespace

void inferOneHot(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& indices = graph.value(node.inputs[0]);
    const Value& values = graph.value(node.inputs[2]);
    requireDType(node, "indices", indices.dtype, kNumericDTypes);
    checkValues(node, values.shape);
    const int64_t depth = depthOf(node, constantInput(graph, node, 1, "depth"));
    setOutput(graph, node, values.dtype, oneHotShape(node, indices.shape, depth));
}

std::vector<Tensor> interpretOneHot(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& indices = *inputs[0];
    const Tensor& values = *inputs[2];
    checkValues(node, values.shape);
    const int64_t depth = depthOf(node, *inputs[1]);
    const Shape shape = oneHotShape(node, indices.shape, depth);
    const int64_t axis = oneHotAxis(node, indices.shape);
    const int64_t inner = elementCount(Shape(indices.shape.begin() + axis, indices.shape.end()));
    // Index 0 of `values` is off, 1 is on: the output takes element choice[i] of it.
    std::vector<int64_t> choice(static_cast<size_t>(elementCount(shape)), 0);
    for (int64_t i = 0; i < indices.elementCount(); ++i) {
        const double value = std::trunc(indices.valueAt(i));
        if (!(value >= static_cast<double>(-depth) && value < static_cast<double>(depth))) continue;
        const auto index = static_cast<int64_t>(value) + (value < 0 ? depth : 0);
        const int64_t outer = i / inner, rest = i % inner;
        choice[static_cast<size_t>((outer * depth + index) * inner + rest)] = 1;
    }
    Tensor flat = values;
    flat.shape = {2};
    return {takeElements(flat, shape, choice)};
}

}  // namespace npusim::compiler::ops
