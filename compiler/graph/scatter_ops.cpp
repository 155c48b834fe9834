// ScatterElements (and Scatter, its deprecated name before opset 11) and ScatterND: the data
// with elements (ScatterElements: one per index, along `axis`) or slices (ScatterND: the index
// tuple's leading dims) replaced by the updates, or combined with them by `reduction` (add, mul,
// max, min), in index order: with repeated indices the last write wins, reductions take every
// update. Negative indices count from the back of their axis.
#include <algorithm>
#include <functional>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_attributes.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// Checks the operands shared by both ops; returns the reduction.
ScatterReduction checkScatter(const Node& node, DType data, DType indices, DType updates) {
    requireDType(node, "indices", indices, {DType::Int32, DType::Int64});
    requireSameDType(node, "updates", updates, "data", data);
    const ScatterReduction reduction = scatterReduction(node);
    if (reduction != ScatterReduction::None && data == DType::Bool) {
        opError(node, "reduction '" + stringAttr(node, "reduction", "none") + "' needs numbers, not bool data");
    }
    return reduction;
}

/// ScatterND's updates shape: indices' dims but the last, then data's dims after the indexed ones.
Shape scatterNdUpdates(const Node& node, const Shape& data, const Shape& indices) {
    if (indices.empty() || indices.back() < 1 || indices.back() > static_cast<int64_t>(data.size())) {
        opError(node, "indices " + shapeString(indices) + " must end in a dim of 1 to the rank of data " +
                          shapeString(data));
    }
    Shape updates(indices.begin(), indices.end() - 1);
    updates.insert(updates.end(), data.begin() + indices.back(), data.end());
    return updates;
}

/// The data's values with each (target, update index) pair of `writes` applied in order, as T
/// (double, or int64 with `add` and `multiply` wrapping).
template <class T, class Add, class Multiply>
std::vector<T> scattered(std::vector<T> out, const std::vector<T>& updates,
                         const std::vector<std::pair<int64_t, int64_t>>& writes, ScatterReduction reduction, Add add,
                         Multiply multiply) {
    for (const auto& [target, source] : writes) {
        const T old = out[target], update = updates[source];
        switch (reduction) {
            case ScatterReduction::None: out[target] = update; break;
            case ScatterReduction::Add: out[target] = add(old, update); break;
            case ScatterReduction::Mul: out[target] = multiply(old, update); break;
            case ScatterReduction::Max: out[target] = std::max(old, update); break;
            case ScatterReduction::Min: out[target] = std::min(old, update); break;
        }
    }
    return out;
}

Tensor applyWrites(const Tensor& data, const Tensor& updates, const std::vector<std::pair<int64_t, int64_t>>& writes,
                   ScatterReduction reduction) {
    if (isFloat(data.dtype)) {
        return floatTensor(data.dtype, data.shape,
                           scattered(floatValues(data), floatValues(updates), writes, reduction, std::plus<double>(),
                                     std::multiplies<double>()));
    }
    return integerTensor(data.dtype, data.shape,
                         scattered(integerValues(data), integerValues(updates), writes, reduction, wrappingAdd, wrappingMul));
}

}  // namespace

ScatterReduction scatterReduction(const Node& node) {
    const std::string reduction = stringAttr(node, "reduction", "none");
    if (reduction == "none") return ScatterReduction::None;
    if (reduction == "add") return ScatterReduction::Add;
    if (reduction == "mul") return ScatterReduction::Mul;
    if (reduction == "max") return ScatterReduction::Max;
    if (reduction == "min") return ScatterReduction::Min;
    opError(node, "reduction '" + reduction + "' is not one of none, add, mul, max, min");
}

void inferScatterElements(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    const Value& indices = graph.value(node.inputs[1]);
    const Value& updates = graph.value(node.inputs[2]);
    checkScatter(node, data.dtype, indices.dtype, updates.dtype);
    if (updates.shape != indices.shape) {
        opError(node, "updates " + shapeString(updates.shape) + " must have the shape of indices " +
                          shapeString(indices.shape));
    }
    checkElementIndices(node, data.shape, indices.shape);
    setOutput(graph, node, data.dtype, data.shape);
}

std::vector<Tensor> interpretScatterElements(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    const ScatterReduction reduction = checkScatter(node, data.dtype, indices.dtype, inputs[2]->dtype);
    const auto axis = static_cast<size_t>(gatherAxis(node, data.shape));
    const std::vector<int64_t> strides = rowMajorStrides(data.shape), values = integerValues(indices);
    std::vector<std::pair<int64_t, int64_t>> writes;
    writes.reserve(values.size());
    forEachPosition(indices.shape, [&](const std::vector<int64_t>& position) {
        const auto source = static_cast<int64_t>(writes.size());
        int64_t target = 0;
        for (size_t d = 0; d < position.size(); ++d) {
            target += (d == axis ? checkedIndex(node, values[source], data.shape[d], static_cast<int64_t>(d)) : position[d]) * strides[d];
        }
        writes.emplace_back(target, source);
    });
    return {applyWrites(data, *inputs[2], writes, reduction)};
}

void inferScatterNd(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    const Value& indices = graph.value(node.inputs[1]);
    const Value& updates = graph.value(node.inputs[2]);
    checkScatter(node, data.dtype, indices.dtype, updates.dtype);
    const Shape expected = scatterNdUpdates(node, data.shape, indices.shape);
    if (updates.shape != expected) {
        opError(node, "updates must be " + shapeString(expected) + " for data " + shapeString(data.shape) +
                          " and indices " + shapeString(indices.shape) + ", got " + shapeString(updates.shape));
    }
    setOutput(graph, node, data.dtype, data.shape);
}

std::vector<Tensor> interpretScatterNd(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    const ScatterReduction reduction = checkScatter(node, data.dtype, indices.dtype, inputs[2]->dtype);
    const int64_t depth = indices.shape.back();
    const int64_t slice = elementCount(Shape(data.shape.begin() + depth, data.shape.end()));
    const std::vector<int64_t> strides = rowMajorStrides(data.shape), values = integerValues(indices);
    std::vector<std::pair<int64_t, int64_t>> writes;
    for (int64_t tuple = 0; tuple < indices.elementCount() / depth; ++tuple) {
        int64_t base = 0;
        for (int64_t j = 0; j < depth; ++j) {
            base += checkedIndex(node, values[tuple * depth + j], data.shape[j], j) * strides[j];
        }
        for (int64_t s = 0; s < slice; ++s) writes.emplace_back(base + s, tuple * slice + s);
    }
    return {applyWrites(data, *inputs[2], writes, reduction)};
}

}  // namespace npusim::compiler::ops
