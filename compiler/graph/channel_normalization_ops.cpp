// Normalisations with per-channel statistics, on [N, C, D1, ...] inputs: InstanceNormalization
// (each (n, c) over its spatial dims, then a per-channel scale and bias),
// MeanVarianceNormalization (ONNX's function: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over
// `axes`) and LRN (x over (bias + alpha / size * the sum of squares of the `size` channels
// around it) ^ beta). Statistics and results are computed in double and rounded once.
#include <algorithm>
#include <cmath>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_attributes.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// Per dim of `shape`, whether MeanVarianceNormalization averages over it.
std::vector<bool> normalizedAxes(const Node& node, const Shape& shape) {
    std::vector<bool> reduced(shape.size(), false);
    for (int64_t axis : meanVarianceAxes(node, static_cast<int64_t>(shape.size()))) reduced[static_cast<size_t>(axis)] = true;
    return reduced;
}

/// For each element of `shape`, the flat index of its group: the element with the reduced dims
/// set to 0, in a tensor of `shape` with those dims 1.
std::vector<int64_t> groupOf(const Shape& shape, const std::vector<bool>& reduced) {
    Shape kept = shape;
    for (size_t d = 0; d < shape.size(); ++d) kept[d] = reduced[d] ? 1 : shape[d];
    return broadcastSourceIndices(kept, shape);
}

void requireChannels(const Node& node, const Shape& x, size_t minRank) {
    if (x.size() < minRank) {
        opError(node, "input must have rank >= " + std::to_string(minRank) + " ([N, C, ...]), got " + shapeString(x));
    }
}

}  // namespace

std::vector<int64_t> meanVarianceAxes(const Node& node, int64_t rank) {
    std::vector<int64_t> axes = intListAttr(node, "axes", {0, 2, 3});
    for (int64_t& axis : axes) axis = normalizeAxis(node, axis, rank, "axes");
    return axes;
}

LrnParameters lrnParameters(const Node& node) {
    const LrnParameters p{node.floatAttr("alpha", 1e-4), node.floatAttr("beta", 0.75), node.floatAttr("bias", 1.0),
                          node.intAttr("size", 0)};
    if (p.size < 1) opError(node, "size must be at least 1, got " + std::to_string(p.size));
    return p;
}

void inferChannelNormalization(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "input", x.dtype, kFloatDTypes);
    switch (node.kind) {
        case OpKind::InstanceNormalization:
            requireChannels(node, x.shape, 3);
            for (size_t i = 1; i < 3; ++i) {
                const Value& operand = graph.value(node.inputs[i]);
                const char* name = i == 1 ? "scale" : "B";
                requireSameDType(node, name, operand.dtype, "input", x.dtype);
                if (operand.shape != Shape{x.shape[1]}) {
                    opError(node, std::string(name) + " must be " + shapeString({x.shape[1]}) + " (one per channel), got " +
                                      shapeString(operand.shape));
                }
            }
            break;
        case OpKind::MeanVarianceNormalization: normalizedAxes(node, x.shape); break;
        default:  // LRN
            requireChannels(node, x.shape, 2);
            lrnParameters(node);
    }
    setOutput(graph, node, x.dtype, x.shape);
}

std::vector<Tensor> interpretInstanceNormalization(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const double epsilon = node.floatAttr("epsilon", 1e-5);
    const std::vector<double> values = floatValues(x), scale = floatValues(*inputs[1]), bias = floatValues(*inputs[2]);
    const int64_t channels = x.shape[1], spatial = elementCount(x.shape) / std::max<int64_t>(x.shape[0] * channels, 1);
    std::vector<double> out(values.size());
    for (int64_t group = 0; group < x.shape[0] * channels; ++group) {
        const double* first = values.data() + group * spatial;
        double mean = 0, variance = 0;
        for (int64_t i = 0; i < spatial; ++i) mean += first[i];
        mean /= static_cast<double>(spatial);
        for (int64_t i = 0; i < spatial; ++i) variance += (first[i] - mean) * (first[i] - mean);
        variance /= static_cast<double>(spatial);
        const int64_t c = group % channels;
        for (int64_t i = 0; i < spatial; ++i) {
            out[group * spatial + i] = scale[c] * (first[i] - mean) / std::sqrt(variance + epsilon) + bias[c];
        }
    }
    return {floatTensor(x.dtype, x.shape, out)};
}

std::vector<Tensor> interpretMeanVarianceNormalization(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const std::vector<int64_t> group = groupOf(x.shape, normalizedAxes(node, x.shape));
    const std::vector<double> values = floatValues(x);
    const int64_t groups = values.empty() ? 0 : *std::max_element(group.begin(), group.end()) + 1;
    std::vector<double> sum(groups), squares(groups), count(groups);
    for (size_t i = 0; i < values.size(); ++i) {
        sum[group[i]] += values[i];
        squares[group[i]] += values[i] * values[i];
        count[group[i]] += 1;
    }
    std::vector<double> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        const double mean = sum[group[i]] / count[group[i]];
        const double deviation = std::sqrt(squares[group[i]] / count[group[i]] - mean * mean);
        out[i] = (values[i] - mean) / (deviation + 1e-9);
    }
    return {floatTensor(x.dtype, x.shape, out)};
}

std::vector<Tensor> interpretLrn(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const LrnParameters p = lrnParameters(node);
    const int64_t channels = x.shape[1];
    const int64_t inner = elementCount(x.shape) / std::max<int64_t>(x.shape[0] * channels, 1);
    const std::vector<double> values = floatValues(x);
    std::vector<double> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        const auto index = static_cast<int64_t>(i);
        const int64_t c = index / inner % channels, base = index - c * inner;
        double squares = 0;
        for (int64_t k = std::max<int64_t>(0, c - (p.size - 1) / 2); k <= std::min(channels - 1, c + p.size / 2); ++k) {
            squares += values[base + k * inner] * values[base + k * inner];
        }
        out[i] = values[i] / std::pow(p.bias + p.alpha / static_cast<double>(p.size) * squares, p.beta);
    }
    return {floatTensor(x.dtype, x.shape, out)};
}

}  // namespace npusim::compiler::ops
