// CumSum: running sums along an axis (input 1, a scalar); exclusive leaves each element out of
// its own sum, reverse runs from the end of the axis. Float sums accumulate in double and round
// once per output; integer sums wrap at the dtype's width.
#include <algorithm>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

constexpr std::initializer_list<DType> kCumSumDTypes = {DType::Fp32, DType::Fp16, DType::Bf16,
                                                        DType::Int32, DType::Int64};

int64_t cumSumAxis(const Node& node, const Shape& input, const Tensor& axis) {
    requireDType(node, "axis", axis.dtype, {DType::Int32, DType::Int64});
    if (axis.elementCount() != 1) {
        opError(node, "axis must hold one element, got " + shapeString(axis.shape));
    }
    if (input.empty()) opError(node, "x must have rank >= 1, got a scalar");
    return normalizeAxis(node, integerValues(axis)[0], static_cast<int64_t>(input.size()));
}

/// out[i] = the sum of the elements before (after, if reverse) position i along the axis, with
/// element i itself unless exclusive; T is double or int64.
template <class T, class Add>
std::vector<T> runningSums(const Node& node, const Shape& shape, int64_t axis,
                           const std::vector<T>& values, Add add) {
    const bool exclusive = node.intAttr("exclusive", 0) != 0;
    const bool reverse = node.intAttr("reverse", 0) != 0;
    const int64_t size = shape[axis];
    const int64_t inner = rowMajorStrides(shape)[axis];
    std::vector<T> sums(values.size());
    for (int64_t line = 0; line < elementCount(shape) / std::max<int64_t>(size, 1); ++line) {
        const int64_t base = line / inner * size * inner + line % inner;
        T total = 0;
        for (int64_t step = 0; step < size; ++step) {
            const int64_t index = base + (reverse ? size - 1 - step : step) * inner;
            if (exclusive) sums[index] = total;
            total = add(total, values[index]);
            if (!exclusive) sums[index] = total;
        }
    }
    return sums;
}

}  // namespace

void inferCumSum(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "x", x.dtype, kCumSumDTypes);
    const Value& axis = graph.value(node.inputs[1]);
    if (axis.constant) cumSumAxis(node, x.shape, *axis.constant);
    setOutput(graph, node, x.dtype, x.shape);
}

std::vector<Tensor> interpretCumSum(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    requireDType(node, "x", x.dtype, kCumSumDTypes);
    const int64_t axis = cumSumAxis(node, x.shape, *inputs[1]);
    if (isFloat(x.dtype)) {
        const std::vector<double> sums = runningSums(node, x.shape, axis, floatValues(x),
                                                     [](double a, double b) { return a + b; });
        return {floatTensor(x.dtype, x.shape, sums)};
    }
    const std::vector<int64_t> sums =
        runningSums(node, x.shape, axis, integerValues(x), wrappingAdd);
    return {integerTensor(x.dtype, x.shape, sums)};
}

}  // namespace npusim::compiler::ops
