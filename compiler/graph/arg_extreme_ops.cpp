// ArgMax and ArgMin: the int64 index of the largest (smallest) element along an axis, the
// first one on ties unless select_last_index; keepdims keeps the axis with size 1.
#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

int64_t reducedAxis(const Node& node, const Shape& input) {
    if (input.empty()) opError(node, "data must have rank >= 1, got a scalar");
    const int64_t axis =
        normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(input.size()));
    if (input[axis] == 0) {
        opError(node, "axis " + std::to_string(axis) + " of " + shapeString(input) +
                          " is empty, so it has no extreme element");
    }
    return axis;
}

Shape reducedShape(const Node& node, const Shape& input) {
    const int64_t axis = reducedAxis(node, input);
    Shape out = input;
    if (node.intAttr("keepdims", 1) != 0) {
        out[axis] = 1;
    } else {
        out.erase(out.begin() + axis);
    }
    return out;
}

template <class T>
Tensor argExtreme(const Node& node, const Shape& input, const std::vector<T>& values) {
    const int64_t axis = reducedAxis(node, input);
    const bool largest = node.kind == OpKind::ArgMax;
    const bool last = node.intAttr("select_last_index", 0) != 0;
    const int64_t size = input[axis];
    const int64_t inner = rowMajorStrides(input)[axis];
    Tensor out = Tensor::zeros(DType::Int64, reducedShape(node, input));
    const std::span<int64_t> result = out.as<int64_t>();
    for (size_t slot = 0; slot < result.size(); ++slot) {
        const int64_t base =
            static_cast<int64_t>(slot) / inner * size * inner + static_cast<int64_t>(slot) % inner;
        int64_t best = 0;
        for (int64_t i = 1; i < size; ++i) {
            const T candidate = values[base + i * inner], held = values[base + best * inner];
            const bool better = largest ? candidate > held : candidate < held;
            if (better || (last && candidate == held)) best = i;
        }
        result[slot] = best;
    }
    return out;
}

}  // namespace

void inferArgExtreme(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    requireDType(node, "data", data.dtype, kNumericDTypes);
    setOutput(graph, node, DType::Int64, reducedShape(node, data.shape));
}

std::vector<Tensor> interpretArgExtreme(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    requireDType(node, "data", data.dtype, kNumericDTypes);
    if (isFloat(data.dtype)) return {argExtreme(node, data.shape, floatValues(data))};
    return {argExtreme(node, data.shape, integerValues(data))};
}

}  // namespace npusim::compiler::ops
