// npusim.RMSNormalization, an op of the compiler's own (the recognize-normalization pass makes it
// from its decomposed form): Y = X / sqrt(mean(X^2 over the dims from `axis` on) + epsilon) *
// Scale, Scale broadcasting to X. Statistics and results in double, rounded once.
#include <cmath>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {

void inferRmsNormalization(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& scale = graph.value(node.inputs[1]);
    requireDType(node, "X", x.dtype, {DType::Fp32});
    requireDType(node, "Scale", scale.dtype, {DType::Fp32});
    if (broadcastShapes(node, x.shape, scale.shape) != x.shape) {
        opError(node, "Scale " + shapeString(scale.shape) + " does not broadcast to X " + shapeString(x.shape));
    }
    normalizeAxis(node, node.intAttr("axis", -1), static_cast<int64_t>(x.shape.size()));
    setOutput(graph, node, x.dtype, x.shape);
}

std::vector<Tensor> interpretRmsNormalization(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const int64_t axis = normalizeAxis(node, node.intAttr("axis", -1), static_cast<int64_t>(x.shape.size()));
    const double epsilon = node.floatAttr("epsilon", 1e-5);
    int64_t rows = 1;
    for (int64_t d = 0; d < axis; ++d) rows *= x.shape[d];
    const int64_t columns = rows == 0 ? 0 : x.elementCount() / rows;
    const std::vector<double> values = floatValues(x), scales = floatValues(*inputs[1]);
    const std::vector<int64_t> scaleIndex = broadcastSourceIndices(inputs[1]->shape, x.shape);
    std::vector<double> y(values.size());
    for (int64_t row = 0; row < rows; ++row) {
        double squares = 0;
        for (int64_t i = row * columns; i < (row + 1) * columns; ++i) squares += values[i] * values[i];
        const double inverse = 1.0 / std::sqrt(squares / static_cast<double>(columns) + epsilon);
        for (int64_t i = row * columns; i < (row + 1) * columns; ++i) y[i] = values[i] * inverse * scales[scaleIndex[i]];
    }
    return {floatTensor(x.dtype, x.shape, y)};
}

}  // namespace npusim::compiler::ops
