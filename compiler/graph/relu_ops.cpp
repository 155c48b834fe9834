// Relu and its relatives: Relu, LeakyRelu, PRelu, HardSigmoid, HardSwish, Clip, npusim.Gelu and
// ONNX Runtime's QuickGelu.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

template <class T>
void relu(std::span<const T> in, std::span<T> out) {
    std::transform(in.begin(), in.end(), out.begin(), [](T x) { return std::max(x, T{0}); });
}

/// max(0, min(1, alpha * x + beta)), the ramp of HardSigmoid and HardSwish.
double hardSigmoid(double x, double alpha, double beta) {
    return std::max(0.0, std::min(1.0, alpha * x + beta));
}

}  // namespace

void inferRelu(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, {DType::Fp32, DType::Int32, DType::Int8});
    setOutput(graph, node, x.dtype, x.shape);
}

std::vector<Tensor> interpretRelu(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    Tensor out = Tensor::zeros(x.dtype, x.shape);
    switch (x.dtype) {
        case DType::Fp32:
            relu(x.as<float>(), out.as<float>());
            break;
        case DType::Int32:
            relu(x.as<int32_t>(), out.as<int32_t>());
            break;
        case DType::Int8:
            relu(x.as<int8_t>(), out.as<int8_t>());
            break;
        default:
            opError(node, "X is " + std::string(dtypeName(x.dtype)) +
                              "; Relu supports fp32, int32, int8");
    }
    return {std::move(out)};
}

/// LeakyRelu: x for x >= 0, alpha * x below.
std::vector<Tensor> interpretLeakyRelu(const Node& node, std::span<const Tensor* const> inputs) {
    const double alpha = node.floatAttr("alpha", 0.01f);
    return {mapFloat(*inputs[0], [alpha](double x) { return x >= 0 ? x : alpha * x; })};
}

/// PRelu: slope broadcasts to X (unidirectionally: the output has X's shape).
void inferPRelu(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& slope = graph.value(node.inputs[1]);
    requireDType(node, "X", x.dtype, kNumericDTypes);
    requireSameDType(node, "X", x.dtype, "slope", slope.dtype);
    if (broadcastShapes(node, x.shape, slope.shape) != x.shape) {
        opError(node, "slope " + shapeString(slope.shape) + " does not broadcast to X " +
                          shapeString(x.shape));
    }
    setOutput(graph, node, x.dtype, x.shape);
}

/// PRelu: x for x >= 0, slope * x below.
std::vector<Tensor> interpretPRelu(const Node& node, std::span<const Tensor* const> inputs) {
    return {broadcastBinary(
        node, *inputs[0], *inputs[1], [](double x, double slope) { return x >= 0 ? x : slope * x; },
        [](int64_t x, int64_t slope) { return x >= 0 ? x : wrappingMul(slope, x); })};
}

std::vector<Tensor> interpretHardSigmoid(const Node& node, std::span<const Tensor* const> inputs) {
    const double alpha = node.floatAttr("alpha", 0.2f);
    const double beta = node.floatAttr("beta", 0.5f);
    return {mapFloat(*inputs[0], [=](double x) { return hardSigmoid(x, alpha, beta); })};
}

/// HardSwish: x * HardSigmoid(x) with alpha = 1/6 and beta = 0.5.
std::vector<Tensor> interpretHardSwish(const Node&, std::span<const Tensor* const> inputs) {
    return {mapFloat(*inputs[0], [](double x) { return x * hardSigmoid(x, 1.0 / 6, 0.5); })};
}

/// GELU, exact: x * Phi(x) = x * (1 + erf(x / sqrt(2))) / 2.
std::vector<Tensor> interpretGelu(const Node&, std::span<const Tensor* const> inputs) {
    return {mapFloat(*inputs[0], [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); })};
}

/// ONNX Runtime's QuickGelu: x * sigmoid(alpha * x), alpha 1.702 by default.
std::vector<Tensor> interpretQuickGelu(const Node& node, std::span<const Tensor* const> inputs) {
    const double alpha = node.floatAttr("alpha", 1.702f);
    return {mapFloat(*inputs[0], [alpha](double x) { return x / (1.0 + std::exp(-alpha * x)); })};
}

/// Its body: Mul(x, Sigmoid(Mul(x, alpha))).
void expandQuickGelu(const Node& node, FunctionBody& body) {
    const ValueId x = node.inputs[0];
    const ValueId alpha = body.scalar(body.dtype(x), node.floatAttr("alpha", 1.702f));
    body.result(OpKind::Mul, {x, body.op(OpKind::Sigmoid, {body.op(OpKind::Mul, {x, alpha})})});
}

void inferClip(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "input", x.dtype, kNumericDTypes);
    // The bounds are inputs from opset 11 on and attributes before.
    for (const auto& [index, name] : {std::pair<size_t, const char*>{1, "min"}, {2, "max"}}) {
        const Value* bound = optionalInput(graph, node, index);
        if (node.attributes.contains(name)) {
            if (bound) {
                opError(node, std::string(name) + " is given both as an attribute and an input");
            }
            if (!isFloat(x.dtype)) {
                opError(node, std::string("the ") + name +
                                  " attribute (before opset 11) bounds float inputs only, but "
                                  "input is " +
                                  std::string(dtypeName(x.dtype)));
            }
        }
        if (bound == nullptr) continue;
        if (bound->dtype != x.dtype) {
            opError(node, std::string(name) + " is " + std::string(dtypeName(bound->dtype)) +
                              " but input is " + std::string(dtypeName(x.dtype)) +
                              "; they must have the same dtype");
        }
        if (elementCount(bound->shape) != 1) {
            opError(node,
                    std::string(name) + " must be a scalar, got " + shapeString(bound->shape));
        }
    }
    setOutput(graph, node, x.dtype, x.shape);
}

/// Clip: min(max(x, min), max), so max wins where min > max; an absent bound does not bound.
std::vector<Tensor> interpretClip(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Tensor* lowInput = inputs.size() > 1 ? inputs[1] : nullptr;
    const Tensor* highInput = inputs.size() > 2 ? inputs[2] : nullptr;
    if (isFloat(x.dtype)) {
        constexpr double kInfinity = std::numeric_limits<double>::infinity();
        const double low = lowInput ? lowInput->valueAt(0) : node.floatAttr("min", -kInfinity);
        const double high = highInput ? highInput->valueAt(0) : node.floatAttr("max", kInfinity);
        return {mapFloat(x, [=](double v) { return std::min(std::max(v, low), high); })};
    }
    const int64_t low =
        lowInput ? integerValues(*lowInput)[0] : std::numeric_limits<int64_t>::min();
    const int64_t high =
        highInput ? integerValues(*highInput)[0] : std::numeric_limits<int64_t>::max();
    return {mapInteger(x, [=](int64_t v) { return std::min(std::max(v, low), high); })};
}

}  // namespace npusim::compiler::ops
