// Elementwise unary math and activations: Sqrt, Exp, Log, Neg, Abs, Reciprocal, Sigmoid, Tanh,
// Erf, Elu, Selu, Softplus, ThresholdedRelu. Floats are computed in double and rounded to the
// dtype once; Neg and Abs also take integers, wrapping like two's complement hardware.
#include <cmath>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
// Attribute defaults are written as float literals: ONNX attributes are float32.

void inferUnary(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    switch (node.kind) {
        case OpKind::Neg:
            requireDType(node, "X", x.dtype, kSignedDTypes);
            break;
        case OpKind::Abs:
            requireDType(node, "X", x.dtype, kNumericDTypes);
            break;
        default:
            requireDType(node, "X", x.dtype, kFloatDTypes);
    }
    setOutput(graph, node, x.dtype, x.shape);
}

std::vector<Tensor> interpretSqrt(const Node&, std::span<const Tensor* const> inputs) {
    return {mapFloat(*inputs[0], [](double x) { return std::sqrt(x); })};
}

std::vector<Tensor> interpretExp(const Node&, std::span<const Tensor* const> inputs) {
    return {mapFloat(*inputs[0], [](double x) { return std::exp(x); })};
}

std::vector<Tensor> interpretLog(const Node&, std::span<const Tensor* const> inputs) {
    return {mapFloat(*inputs[0], [](double x) { return std::log(x); })};
}

std::vector<Tensor> interpretNeg(const Node&, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    if (isFloat(x.dtype)) return {mapFloat(x, [](double value) { return -value; })};
    return {mapInteger(x, [](int64_t value) { return wrappingSub(0, value); })};
}

std::vector<Tensor> interpretAbs(const Node&, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    if (isFloat(x.dtype)) return {mapFloat(x, [](double value) { return std::fabs(value); })};
    return {mapInteger(x, [](int64_t value) { return value < 0 ? wrappingSub(0, value) : value; })};
}

std::vector<Tensor> interpretReciprocal(const Node&, std::span<const Tensor* const> inputs) {
    return {mapFloat(*inputs[0], [](double x) { return 1.0 / x; })};
}

std::vector<Tensor> interpretSigmoid(const Node&, std::span<const Tensor* const> inputs) {
    return {mapFloat(*inputs[0], [](double x) { return 1.0 / (1.0 + std::exp(-x)); })};
}

std::vector<Tensor> interpretTanh(const Node&, std::span<const Tensor* const> inputs) {
    return {mapFloat(*inputs[0], [](double x) { return std::tanh(x); })};
}

std::vector<Tensor> interpretErf(const Node&, std::span<const Tensor* const> inputs) {
    return {mapFloat(*inputs[0], [](double x) { return std::erf(x); })};
}

/// Elu: x for x >= 0, alpha * (e^x - 1) below.
std::vector<Tensor> interpretElu(const Node& node, std::span<const Tensor* const> inputs) {
    const double alpha = node.floatAttr("alpha", 1.0f);
    return {mapFloat(*inputs[0], [alpha](double x) { return x >= 0 ? x : alpha * std::expm1(x); })};
}

/// Selu: gamma * x for x > 0, gamma * alpha * (e^x - 1) otherwise.
std::vector<Tensor> interpretSelu(const Node& node, std::span<const Tensor* const> inputs) {
    const double alpha = node.floatAttr("alpha", 1.67326319217681884765625f);
    const double gamma = node.floatAttr("gamma", 1.05070102214813232421875f);
    return {mapFloat(*inputs[0], [alpha, gamma](double x) {
        return x > 0 ? gamma * x : gamma * alpha * std::expm1(x);
    })};
}

/// Softplus: ln(e^x + 1), evaluated without overflowing e^x for large x.
std::vector<Tensor> interpretSoftplus(const Node&, std::span<const Tensor* const> inputs) {
    return {mapFloat(*inputs[0], [](double x) {
        return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    })};
}

/// ThresholdedRelu: x where x > alpha, else 0.
std::vector<Tensor> interpretThresholdedRelu(const Node& node,
                                             std::span<const Tensor* const> inputs) {
    const double alpha = node.floatAttr("alpha", 1.0f);
    return {mapFloat(*inputs[0], [alpha](double x) { return x > alpha ? x : 0.0; })};
}

}  // namespace npusim::compiler::ops
