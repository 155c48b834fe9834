// Softmax, LogSoftmax and Hardmax along one axis (ONNX opset 13 on). Softmax and LogSoftmax are
// computed in double with the maximum subtracted first so that e^x cannot overflow; Hardmax is 1
// at the first maximum of each slice and 0 elsewhere.
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

/// The opset from which Softmax and LogSoftmax normalise along one axis (default -1); before it
/// they flattened the input to 2-D at `axis` (default 1) and normalised each row.
constexpr int64_t kSingleAxisOpset = 13;

/// The product of `shape[begin, end)`.
int64_t dimProduct(const Shape& shape, size_t begin, size_t end) {
    int64_t product = 1;
    for (size_t dim = begin; dim < end; ++dim) product *= shape[dim];
    return product;
}

/// Rejects a pre-13 node whose 2-D semantics differ from the single-axis semantics the
/// interpreter implements: they agree when the given axis has only size-1 dims after it, or,
/// with the axis attribute absent, when the input is 2-D (old default 1 = new default -1).
void checkLegacyAxis(const Node& node, const Shape& shape) {
    const auto rank = static_cast<int64_t>(shape.size());
    const auto it = node.attributes.find("axis");
    const int64_t axis = normalizeAxis(node, node.intAttr("axis", 1), rank);
    const bool agrees = it == node.attributes.end()
                            ? rank == 2
                            : dimProduct(shape, static_cast<size_t>(axis) + 1, shape.size()) == 1;
    if (!agrees) {
        opError(node, "before opset 13 this op normalises over the dims from axis " +
                          std::to_string(axis) + " on, flattened together (input " +
                          shapeString(shape) +
                          "); npusim implements the single-axis form of opset 13, which differs "
                          "here: export the model with opset 13 or later");
    }
}

/// Normalises every 1-D slice along the node's axis with `normalise(slice)`.
template <class Normalise>
Tensor alongAxis(const Node& node, const Tensor& x, Normalise normalise) {
    const auto axis = static_cast<size_t>(
        normalizeAxis(node, node.intAttr("axis", -1), static_cast<int64_t>(x.shape.size())));
    const int64_t outer = dimProduct(x.shape, 0, axis);
    const int64_t length = x.shape[axis];
    const int64_t inner = dimProduct(x.shape, axis + 1, x.shape.size());
    std::vector<double> values = floatValues(x);
    std::vector<double> slice(static_cast<size_t>(length));
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
            double* first = values.data() + o * length * inner + i;
            for (int64_t k = 0; k < length; ++k) slice[k] = first[k * inner];
            normalise(slice);
            for (int64_t k = 0; k < length; ++k) first[k * inner] = slice[k];
        }
    }
    return floatTensor(x.dtype, x.shape, values);
}

/// The slice's maximum (0 when it is not finite, so that infinities do not give NaN) and
/// ln(sum(e^(x - maximum))).
std::pair<double, double> shiftAndLogSum(const std::vector<double>& slice) {
    double shift = -std::numeric_limits<double>::infinity();
    for (double v : slice) shift = std::max(shift, v);
    if (!std::isfinite(shift)) shift = 0;
    double sum = 0;
    for (double v : slice) sum += std::exp(v - shift);
    return {shift, std::log(sum)};
}

}  // namespace

void inferSoftmax(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "input", x.dtype, kFloatDTypes);
    if (graph.opset < kSingleAxisOpset) checkLegacyAxis(node, x.shape);
    normalizeAxis(node, node.intAttr("axis", -1), static_cast<int64_t>(x.shape.size()));
    setOutput(graph, node, x.dtype, x.shape);
}

std::vector<Tensor> interpretSoftmax(const Node& node, std::span<const Tensor* const> inputs) {
    return {alongAxis(node, *inputs[0], [](std::vector<double>& slice) {
        const auto [shift, logSum] = shiftAndLogSum(slice);
        for (double& v : slice) v = std::exp(v - shift - logSum);
    })};
}

std::vector<Tensor> interpretLogSoftmax(const Node& node, std::span<const Tensor* const> inputs) {
    return {alongAxis(node, *inputs[0], [](std::vector<double>& slice) {
        const auto [shift, logSum] = shiftAndLogSum(slice);
        for (double& v : slice) v = v - shift - logSum;
    })};
}

std::vector<Tensor> interpretHardmax(const Node& node, std::span<const Tensor* const> inputs) {
    return {alongAxis(node, *inputs[0], [](std::vector<double>& slice) {
        const auto first = std::max_element(slice.begin(), slice.end());
        for (auto it = slice.begin(); it != slice.end(); ++it) *it = it == first ? 1 : 0;
    })};
}

}  // namespace npusim::compiler::ops
