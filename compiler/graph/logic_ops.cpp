// Comparisons (Equal, Less, Greater, LessOrEqual, GreaterOrEqual), logic on bools (Not, And,
// Or, Xor) and Where: numpy-broadcast elementwise ops with bool results or a bool selector.
#include <cstring>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// The dtypes each binary op compares or combines.
std::initializer_list<DType> operandDTypes(OpKind kind) {
    static constexpr std::initializer_list<DType> kBool = {DType::Bool};
    static constexpr std::initializer_list<DType> kEquatable = {
        DType::Fp32,  DType::Fp16,  DType::Bf16,  DType::Int8,
        DType::UInt8, DType::Int32, DType::Int64, DType::Bool};
    switch (kind) {
        case OpKind::And:
        case OpKind::Or:
        case OpKind::Xor:
            return kBool;
        case OpKind::Equal:
            return kEquatable;
        default:
            return kNumericDTypes;
    }
}

/// `a op b` for the comparison or logic op, on values widened to double or int64.
template <class T>
bool apply(OpKind kind, T a, T b) {
    switch (kind) {
        case OpKind::Equal:
            return a == b;
        case OpKind::Less:
            return a < b;
        case OpKind::Greater:
            return a > b;
        case OpKind::LessOrEqual:
            return a <= b;
        case OpKind::GreaterOrEqual:
            return a >= b;
        case OpKind::And:
            return a != 0 && b != 0;
        case OpKind::Or:
            return a != 0 || b != 0;
        default:
            return (a != 0) != (b != 0);  // Xor
    }
}

template <class T>
Tensor compare(OpKind kind, const std::vector<T>& a, const std::vector<T>& b,
               const std::vector<int64_t>& aIndex, const std::vector<int64_t>& bIndex,
               const Shape& shape) {
    Tensor out = Tensor::zeros(DType::Bool, shape);
    const std::span<uint8_t> result = out.as<uint8_t>();
    for (size_t i = 0; i < result.size(); ++i) result[i] = apply(kind, a[aIndex[i]], b[bIndex[i]]);
    return out;
}

void checkWhereDTypes(const Node& node, DType condition, DType x, DType y) {
    requireDType(node, "condition", condition, {DType::Bool});
    requireSameDType(node, "X", x, "Y", y);
}

}  // namespace

void inferBinaryLogic(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& a = graph.value(node.inputs[0]);
    const Value& b = graph.value(node.inputs[1]);
    requireDType(node, "A", a.dtype, operandDTypes(node.kind));
    requireSameDType(node, "A", a.dtype, "B", b.dtype);
    setOutput(graph, node, DType::Bool, broadcastShapes(node, a.shape, b.shape));
}

std::vector<Tensor> interpretBinaryLogic(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& a = *inputs[0];
    const Tensor& b = *inputs[1];
    requireDType(node, "A", a.dtype, operandDTypes(node.kind));
    requireSameDType(node, "A", a.dtype, "B", b.dtype);
    const Shape shape = broadcastShapes(node, a.shape, b.shape);
    const std::vector<int64_t> aIndex = broadcastSourceIndices(a.shape, shape);
    const std::vector<int64_t> bIndex = broadcastSourceIndices(b.shape, shape);
    if (isFloat(a.dtype)) {
        return {compare(node.kind, floatValues(a), floatValues(b), aIndex, bIndex, shape)};
    }
    return {compare(node.kind, integerValues(a), integerValues(b), aIndex, bIndex, shape)};
}

void inferNot(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, {DType::Bool});
    setOutput(graph, node, DType::Bool, x.shape);
}

std::vector<Tensor> interpretNot(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    requireDType(node, "X", x.dtype, {DType::Bool});
    Tensor out = Tensor::zeros(DType::Bool, x.shape);
    const std::span<const uint8_t> in = x.as<uint8_t>();
    const std::span<uint8_t> result = out.as<uint8_t>();
    for (size_t i = 0; i < in.size(); ++i) result[i] = in[i] == 0;
    return {std::move(out)};
}

void inferWhere(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& condition = graph.value(node.inputs[0]);
    const Value& x = graph.value(node.inputs[1]);
    const Value& y = graph.value(node.inputs[2]);
    checkWhereDTypes(node, condition.dtype, x.dtype, y.dtype);
    setOutput(graph, node, x.dtype,
              broadcastShapes(node, broadcastShapes(node, condition.shape, x.shape), y.shape));
}

std::vector<Tensor> interpretWhere(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& condition = *inputs[0];
    const Tensor& x = *inputs[1];
    const Tensor& y = *inputs[2];
    checkWhereDTypes(node, condition.dtype, x.dtype, y.dtype);
    const Shape shape =
        broadcastShapes(node, broadcastShapes(node, condition.shape, x.shape), y.shape);
    const std::vector<int64_t> conditionIndex = broadcastSourceIndices(condition.shape, shape);
    const std::vector<int64_t> xIndex = broadcastSourceIndices(x.shape, shape);
    const std::vector<int64_t> yIndex = broadcastSourceIndices(y.shape, shape);
    const std::span<const uint8_t> chosen = condition.as<uint8_t>();
    const size_t size = dtypeSize(x.dtype);
    Tensor out = Tensor::zeros(x.dtype, shape);
    for (size_t i = 0; i < xIndex.size(); ++i) {
        const std::byte* from = chosen[conditionIndex[i]] != 0 ? x.bytes.data() + xIndex[i] * size
                                                               : y.bytes.data() + yIndex[i] * size;
        std::memcpy(out.bytes.data() + i * size, from, size);
    }
    return {std::move(out)};
}

}  // namespace npusim::compiler::ops
