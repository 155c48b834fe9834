// Shape, Size, ConstantOfShape and Range: ops that make tensors from shapes or scalars. With
// static shapes Shape and Size are always constants, and the frontend folds them.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// Shape's [start, end) window of the input's dims: negative ends count from the back, and
/// both are clamped to [0, rank].
std::pair<int64_t, int64_t> shapeWindow(const Node& node, const Shape& input) {
    const auto rank = static_cast<int64_t>(input.size());
    const auto clampDim = [&](int64_t dim) {
        return std::clamp<int64_t>(dim < 0 ? dim + rank : dim, 0, rank);
    };
    const int64_t start = clampDim(node.intAttr("start", 0));
    const int64_t end = clampDim(node.intAttr("end", rank));
    return {start, std::max(start, end)};
}

/// ConstantOfShape's value attribute: one element, fp32 zero by default.
Tensor fillElement(const Node& node) {
    const auto it = node.attributes.find("value");
    if (it == node.attributes.end()) return Tensor::zeros(DType::Fp32, {1});
    const auto* value = std::get_if<Tensor>(&it->second);
    if (value == nullptr || value->elementCount() != 1) {
        opError(node, "attribute 'value' must be a one-element tensor");
    }
    return *value;
}

Shape filledShape(const Node& node, const std::vector<int64_t>& dims) {
    for (int64_t dim : dims) {
        if (dim < 0) opError(node, "shape " + shapeString(dims) + " has a negative dimension");
    }
    return dims;
}

/// Range's element count: max(ceil((limit - start) / delta), 0), exact for integers.
int64_t rangeCount(const Node& node, const Tensor& start, const Tensor& limit,
                   const Tensor& delta) {
    for (const Tensor* scalar : {&start, &limit, &delta}) {
        if (scalar->elementCount() != 1) {
            opError(node,
                    "start, limit and delta must be scalars, got " + shapeString(scalar->shape));
        }
        if (scalar->dtype != start.dtype) {
            opError(node, "start, limit and delta must have the same dtype; start is " +
                              std::string(dtypeName(start.dtype)) + ", another is " +
                              std::string(dtypeName(scalar->dtype)));
        }
    }
    if (isFloat(start.dtype)) {
        const double step = delta.valueAt(0);
        if (step == 0 || !std::isfinite(step)) opError(node, "delta must be finite and non-zero");
        const double count = std::ceil((limit.valueAt(0) - start.valueAt(0)) / step);
        if (!(count < 0x1p62)) opError(node, "the range has too many elements");
        return count > 0 ? static_cast<int64_t>(count) : 0;
    }
    const int64_t first = integerValues(start)[0], last = integerValues(limit)[0];
    const int64_t step = integerValues(delta)[0];
    if (step == 0) opError(node, "delta must be non-zero");
    // Counted in uint64, which holds the distance between any two int64 values.
    const bool up = step > 0;
    if (up ? last <= first : first <= last) return 0;
    const auto wide = [](int64_t value) { return static_cast<uint64_t>(value); };
    const uint64_t distance = up ? wide(last) - wide(first) : wide(first) - wide(last);
    const uint64_t stride = up ? wide(step) : uint64_t{0} - wide(step);
    return static_cast<int64_t>((distance - 1) / stride + 1);
}

constexpr std::initializer_list<DType> kRangeDTypes = {DType::Fp32, DType::Int32, DType::Int64};

}  // namespace

Tensor shapeTensor(const Node& node, const Shape& input) {
    const auto [start, end] = shapeWindow(node, input);
    Tensor out = Tensor::zeros(DType::Int64, {end - start});
    std::copy(input.begin() + start, input.begin() + end, out.as<int64_t>().begin());
    return out;
}

Tensor sizeTensor(const Shape& input) {
    Tensor out = Tensor::zeros(DType::Int64, {});
    out.as<int64_t>()[0] = elementCount(input);
    return out;
}

void inferShape(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const auto [start, end] = shapeWindow(node, graph.value(node.inputs[0]).shape);
    setOutput(graph, node, DType::Int64, {end - start});
}

std::vector<Tensor> interpretShape(const Node& node, std::span<const Tensor* const> inputs) {
    return {shapeTensor(node, inputs[0]->shape)};
}

void inferSize(Graph& graph, const Node& node) {
    checkArity(graph, node);
    setOutput(graph, node, DType::Int64, {});
}

std::vector<Tensor> interpretSize(const Node&, std::span<const Tensor* const> inputs) {
    return {sizeTensor(inputs[0]->shape)};
}

void inferConstantOfShape(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Shape shape = filledShape(node, constantInts(graph, node, 0, "shape"));
    setOutput(graph, node, fillElement(node).dtype, shape);
}

std::vector<Tensor> interpretConstantOfShape(const Node& node,
                                             std::span<const Tensor* const> inputs) {
    const Tensor fill = fillElement(node);
    Tensor out = Tensor::zeros(fill.dtype, filledShape(node, integerValues(*inputs[0])));
    for (size_t offset = 0; offset < out.bytes.size(); offset += fill.bytes.size()) {
        std::memcpy(out.bytes.data() + offset, fill.bytes.data(), fill.bytes.size());
    }
    return {std::move(out)};
}

void inferRange(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Tensor& start = constantInput(graph, node, 0, "start");
    requireDType(node, "start", start.dtype, kRangeDTypes);
    const int64_t count = rangeCount(node, start, constantInput(graph, node, 1, "limit"),
                                     constantInput(graph, node, 2, "delta"));
    setOutput(graph, node, start.dtype, {count});
}

std::vector<Tensor> interpretRange(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& start = *inputs[0];
    const Tensor& delta = *inputs[2];
    requireDType(node, "start", start.dtype, kRangeDTypes);
    const int64_t count = rangeCount(node, start, *inputs[1], delta);
    if (isFloat(start.dtype)) {
        std::vector<double> values(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) {
            values[i] = start.valueAt(0) + static_cast<double>(i) * delta.valueAt(0);
        }
        return {floatTensor(start.dtype, {count}, values)};
    }
    std::vector<int64_t> values(static_cast<size_t>(count));
    const int64_t first = integerValues(start)[0], step = integerValues(delta)[0];
    for (int64_t i = 0; i < count; ++i) values[i] = wrappingAdd(first, wrappingMul(i, step));
    return {integerTensor(start.dtype, {count}, values)};
}

}  // namespace npusim::compiler::ops
