// TopK: the k largest (smallest, if largest=0) elements along an axis and their int64 indices,
// in order from the most extreme; of equal elements the one with the lower index comes first.
// k (input 1, one int64) must be constant: it decides the output shape. sorted=0 allows any
// order, so the sorted one serves it too.
#include <algorithm>
#include <numeric>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

struct TopKGeometry {
    int64_t axis = 0, k = 0;
    Shape output;
};

TopKGeometry topKGeometry(const Node& node, const Shape& input, const Tensor& k) {
    requireDType(node, "K", k.dtype, {DType::Int64});
    if (k.elementCount() != 1) opError(node, "K must hold one element, got " + shapeString(k.shape));
    if (input.empty()) opError(node, "X must have rank >= 1, got a scalar");
    TopKGeometry g;
    g.axis = normalizeAxis(node, node.intAttr("axis", -1), static_cast<int64_t>(input.size()));
    g.k = k.as<int64_t>()[0];
    if (g.k < 0 || g.k > input[g.axis]) {
        opError(node, "K = " + std::to_string(g.k) + " is outside [0, " + std::to_string(input[g.axis]) +
                          "], the size of axis " + std::to_string(g.axis));
    }
    g.output = input;
    g.output[g.axis] = g.k;
    return g;
}

template <class T>
std::vector<Tensor> topK(const Node& node, const Tensor& x, const TopKGeometry& g, const std::vector<T>& values) {
    const bool largest = node.intAttr("largest", 1) != 0;
    const int64_t size = x.shape[g.axis];
    const int64_t inner = rowMajorStrides(x.shape)[g.axis];
    const int64_t lines = elementCount(x.shape) / std::max<int64_t>(size, 1);
    std::vector<T> picked(static_cast<size_t>(elementCount(g.output)));
    Tensor indices = Tensor::zeros(DType::Int64, g.output);
    const std::span<int64_t> indexOut = indices.as<int64_t>();
    std::vector<int64_t> order(static_cast<size_t>(size));
    for (int64_t line = 0; line < lines; ++line) {
        const int64_t base = line / inner * size * inner + line % inner;
        const int64_t outBase = line / inner * g.k * inner + line % inner;
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            const T va = values[base + a * inner], vb = values[base + b * inner];
            return largest ? va > vb : va < vb;
        });
        for (int64_t i = 0; i < g.k; ++i) {
            picked[outBase + i * inner] = values[base + order[i] * inner];
            indexOut[outBase + i * inner] = order[i];
        }
    }
    if constexpr (std::is_same_v<T, double>) {
        return {floatTensor(x.dtype, g.output, picked), std::move(indices)};
    } else {
        return {integerTensor(x.dtype, g.output, picked), std::move(indices)};
    }
}

}  // namespace

void inferTopK(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, kNumericDTypes);
    const TopKGeometry g = topKGeometry(node, x.shape, constantInput(graph, node, 1, "K"));
    setOutput(graph, node, x.dtype, g.output);
    if (node.outputs.size() > 1) {
        Value& indices = graph.value(node.outputs[1]);
        indices.dtype = DType::Int64;
        indices.shape = g.output;
    }
}

std::vector<Tensor> interpretTopK(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    requireDType(node, "X", x.dtype, kNumericDTypes);
    const TopKGeometry g = topKGeometry(node, x.shape, *inputs[1]);
    if (isFloat(x.dtype)) return topK(node, x, g, floatValues(x));
    return topK(node, x, g, integerValues(x));
}

}  // namespace npusim::compiler::ops
