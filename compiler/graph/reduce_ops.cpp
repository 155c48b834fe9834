// The Reduce* family: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceSumSquare,
// ReduceL1, ReduceL2, ReduceLogSum and ReduceLogSumExp over `axes` (an attribute, or an input
// from ReduceSum-13 on), keeping the reduced dims as 1 when keepdims. Empty axes reduce every dim,
// or nothing with noop_with_empty_axes. Floats accumulate in double; integers wrap.
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

/// What a reduction node does to its input.
struct Reduction {
    bool noop = false;  ///< empty axes with noop_with_empty_axes: the output is the input
    Shape keptShape;    ///< the input shape with each reduced dim set to 1
    Shape outputShape;  ///< keptShape, without the reduced dims unless keepdims
};

Reduction reductionOf(const Node& node, const Shape& input, const std::vector<int64_t>& axes) {
    Reduction reduction;
    if (axes.empty() && node.intAttr("noop_with_empty_axes", 0) != 0) {
        reduction.noop = true;
        reduction.keptShape = reduction.outputShape = input;
        return reduction;
    }
    const auto rank = static_cast<int64_t>(input.size());
    std::vector<bool> reduced(input.size(), axes.empty());
    for (int64_t axis : axes) {
        const int64_t dim = normalizeAxis(node, axis, rank, "axes entry");
        if (reduced[dim]) opError(node, "axes name dim " + std::to_string(dim) + " twice");
        reduced[dim] = true;
    }
    const bool keepDims = node.intAttr("keepdims", 1) != 0;
    for (size_t dim = 0; dim < input.size(); ++dim) {
        reduction.keptShape.push_back(reduced[dim] ? 1 : input[dim]);
        if (!reduced[dim] || keepDims) reduction.outputShape.push_back(reduction.keptShape.back());
    }
    return reduction;
}

/// The dtypes each reduction takes: Max and Min order any number; Sum, Prod, SumSquare and L1 are
/// exact on integers; the rest need real arithmetic.
std::initializer_list<DType> reductionDTypes(OpKind kind) {
    static constexpr std::initializer_list<DType> kFloatOrWideInteger = {
        DType::Fp32, DType::Fp16, DType::Bf16, DType::Int32, DType::Int64};
    switch (kind) {
        case OpKind::ReduceMax:
        case OpKind::ReduceMin:
            return kNumericDTypes;
        case OpKind::ReduceSum:
        case OpKind::ReduceProd:
        case OpKind::ReduceSumSquare:
        case OpKind::ReduceL1:
            return kFloatOrWideInteger;
        default:
            return kFloatDTypes;
    }
}

/// Folds every input element into its output element: `step(accumulator, value)` from `initial`,
/// then `finish(accumulator, output element, group size)`.
template <class T, class Step, class Finish>
std::vector<T> foldGroups(const std::vector<T>& values, const std::vector<int64_t>& groupOf,
                          int64_t groups, T initial, Step step, Finish finish) {
    std::vector<T> accumulators(static_cast<size_t>(groups), initial);
    for (size_t i = 0; i < values.size(); ++i) {
        accumulators[groupOf[i]] = step(accumulators[groupOf[i]], values[i]);
    }
    const int64_t groupSize = groups == 0 ? 0 : static_cast<int64_t>(values.size()) / groups;
    for (int64_t group = 0; group < groups; ++group) {
        accumulators[group] = finish(accumulators[group], group, groupSize);
    }
    return accumulators;
}

std::vector<double> reduceFloats(OpKind kind, const std::vector<double>& x,
                                 const std::vector<int64_t>& groupOf, int64_t groups) {
    constexpr double kInfinity = std::numeric_limits<double>::infinity();
    const auto add = [](double sum, double v) { return sum + v; };
    const auto addSquare = [](double sum, double v) { return sum + v * v; };
    const auto same = [](double value, int64_t, int64_t) { return value; };
    // Max and Min propagate NaN, as numpy's do.
    const auto max = [](double m, double v) { return std::isnan(v) || v > m ? v : m; };
    const auto min = [](double m, double v) { return std::isnan(v) || v < m ? v : m; };
    switch (kind) {
        case OpKind::ReduceSum:
            return foldGroups(x, groupOf, groups, 0.0, add, same);
        case OpKind::ReduceMean:
            return foldGroups(x, groupOf, groups, 0.0, add, [](double sum, int64_t, int64_t n) {
                return sum / static_cast<double>(n);
            });
        case OpKind::ReduceMax:
            return foldGroups(x, groupOf, groups, -kInfinity, max, same);
        case OpKind::ReduceMin:
            return foldGroups(x, groupOf, groups, kInfinity, min, same);
        case OpKind::ReduceProd:
            return foldGroups(
                x, groupOf, groups, 1.0, [](double p, double v) { return p * v; }, same);
        case OpKind::ReduceSumSquare:
            return foldGroups(x, groupOf, groups, 0.0, addSquare, same);
        case OpKind::ReduceL1:
            return foldGroups(
                x, groupOf, groups, 0.0, [](double sum, double v) { return sum + std::fabs(v); },
                same);
        case OpKind::ReduceL2:
            return foldGroups(x, groupOf, groups, 0.0, addSquare,
                              [](double sum, int64_t, int64_t) { return std::sqrt(sum); });
        case OpKind::ReduceLogSum:
            return foldGroups(x, groupOf, groups, 0.0, add,
                              [](double sum, int64_t, int64_t) { return std::log(sum); });
        default: {
            // ReduceLogSumExp: max + ln(sum(e^(x - max))), which does not overflow e^x.
            const std::vector<double> maxima =
                foldGroups(x, groupOf, groups, -kInfinity, max, same);
            const auto shiftOf = [&](int64_t group) {
                return std::isfinite(maxima[group]) ? maxima[group] : 0.0;
            };
            std::vector<double> shifted(x.size());
            for (size_t i = 0; i < x.size(); ++i) shifted[i] = x[i] - shiftOf(groupOf[i]);
            return foldGroups(
                shifted, groupOf, groups, 0.0,
                [](double sum, double v) { return sum + std::exp(v); },
                [&](double sum, int64_t group, int64_t) { return shiftOf(group) + std::log(sum); });
        }
    }
}

std::vector<int64_t> reduceIntegers(OpKind kind, const std::vector<int64_t>& x,
                                    const std::vector<int64_t>& groupOf, int64_t groups) {
    const auto same = [](int64_t value, int64_t, int64_t) { return value; };
    switch (kind) {
        case OpKind::ReduceSum:
            return foldGroups(x, groupOf, groups, int64_t{0}, wrappingAdd, same);
        case OpKind::ReduceMax:
            return foldGroups(
                x, groupOf, groups, std::numeric_limits<int64_t>::min(),
                [](int64_t m, int64_t v) { return std::max(m, v); }, same);
        case OpKind::ReduceMin:
            return foldGroups(
                x, groupOf, groups, std::numeric_limits<int64_t>::max(),
                [](int64_t m, int64_t v) { return std::min(m, v); }, same);
        case OpKind::ReduceProd:
            return foldGroups(x, groupOf, groups, int64_t{1}, wrappingMul, same);
        case OpKind::ReduceSumSquare:
            return foldGroups(
                x, groupOf, groups, int64_t{0},
                [](int64_t sum, int64_t v) { return wrappingAdd(sum, wrappingMul(v, v)); }, same);
        default:  // ReduceL1
            return foldGroups(
                x, groupOf, groups, int64_t{0},
                [](int64_t sum, int64_t v) {
                    return wrappingAdd(sum, v < 0 ? wrappingSub(0, v) : v);
                },
                same);
    }
}

}  // namespace

void inferReduce(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    requireDType(node, "data", data.dtype, reductionDTypes(node.kind));
    std::vector<int64_t> axes = intListAttr(node, "axes");
    if (const Value* axesInput = optionalInput(graph, node, 1)) {
        if (node.attributes.contains("axes")) {
            opError(node, "axes is given both as an attribute and an input");
        }
        if (axesInput->shape.size() != 1) {
            opError(node, "axes must be 1-D, got " + shapeString(axesInput->shape));
        }
        // Empty axes are known from the shape alone, constant or not.
        if (axesInput->shape[0] != 0) axes = constantInts(graph, node, 1, "axes");
    }
    setOutput(graph, node, data.dtype, reductionOf(node, data.shape, axes).outputShape);
}

std::vector<Tensor> interpretReduce(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    const Tensor* axesInput = inputs.size() > 1 ? inputs[1] : nullptr;
    const std::vector<int64_t> axes =
        axesInput ? integerValues(*axesInput) : intListAttr(node, "axes");
    const Reduction reduction = reductionOf(node, data.shape, axes);
    if (reduction.noop) return {data};
    const std::vector<int64_t> groupOf = broadcastSourceIndices(reduction.keptShape, data.shape);
    const int64_t groups = elementCount(reduction.outputShape);
    if (isFloat(data.dtype)) {
        return {floatTensor(data.dtype, reduction.outputShape,
                            reduceFloats(node.kind, floatValues(data), groupOf, groups))};
    }
    return {integerTensor(data.dtype, reduction.outputShape,
                          reduceIntegers(node.kind, integerValues(data), groupOf, groups))};
}

}  // namespace npusim::compiler::ops
