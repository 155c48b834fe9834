// The random ops' type functions and reference semantics (numbers from compiler/graph/
// random_draws.h):
//   RandomUniform / RandomUniformLike: low + (high - low) * u, in `dtype` (the input's for
//   the -Like form when absent); shape from the attribute or the input.
//   RandomNormal / RandomNormalLike: mean + scale * g.
//   Bernoulli(p): 1 where u, rounded to p's dtype, is below p; 0 elsewhere; in `dtype` (p's when absent).
// Each element draws one number, in row-major order.
#include "compiler/graph/elementwise.h"
#include "compiler/graph/onnx_element_types.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/random_draws.h"

namespace npusim::compiler::ops {
namespace {

bool isRandomLike(OpKind kind) { return kind == OpKind::RandomUniformLike || kind == OpKind::RandomNormalLike; }
bool isNormal(OpKind kind) { return kind == OpKind::RandomNormal || kind == OpKind::RandomNormalLike; }

/// The output dtype: the `dtype` attribute, else `fallback`.
DType outputDType(const Node& node, DType fallback) {
    if (!node.attributes.contains("dtype")) return fallback;
    const int64_t code = node.intAttr("dtype", 1);
    const std::optional<DType> dtype = dtypeOfOnnxElementType(code);
    if (!dtype) opError(node, "dtype " + onnxElementTypeName(code) + " is not a type npusim has");
    return *dtype;
}

Shape generatedShape(const Node& node, const Shape* like) {
    if (like) return *like;
    const std::vector<int64_t> shape = intListAttr(node, "shape", {});
    if (!node.attributes.contains("shape")) opError(node, "needs its 'shape' attribute");
    for (int64_t dim : shape) {
        if (dim < 0) opError(node, "shape " + shapeString(shape) + " has a negative dim");
    }
    return shape;
}

}  // namespace

void inferRandom(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value* like = isRandomLike(node.kind) ? &graph.value(node.inputs[0]) : nullptr;
    const DType dtype = outputDType(node, like ? like->dtype : DType::Fp32);
    requireDType(node, "the output", dtype, kFloatDTypes);
    setOutput(graph, node, dtype, generatedShape(node, like ? &like->shape : nullptr));
}

std::vector<Tensor> interpretRandom(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor* like = isRandomLike(node.kind) ? inputs[0] : nullptr;
    const DType dtype = outputDType(node, like ? like->dtype : DType::Fp32);
    const Shape shape = generatedShape(node, like ? &like->shape : nullptr);
    RandomDraws draws = RandomDraws::forNode(node);
    std::vector<double> values(static_cast<size_t>(elementCount(shape)));
    if (isNormal(node.kind)) {
        const double mean = node.floatAttr("mean", 0.0), scale = node.floatAttr("scale", 1.0);
        for (double& v : values) v = mean + scale * draws.gauss();
    } else {
        const double low = node.floatAttr("low", 0.0), high = node.floatAttr("high", 1.0);
        for (double& v : values) v = low + (high - low) * draws.uniform();
    }
    return {floatTensor(dtype, shape, values)};
}

void inferBernoulli(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& p = graph.value(node.inputs[0]);
    requireDType(node, "input", p.dtype, kFloatDTypes);
    setOutput(graph, node, outputDType(node, p.dtype), p.shape);
}

std::vector<Tensor> interpretBernoulli(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& p = *inputs[0];
    const std::vector<double> probabilities = floatValues(p);
    // The draws in p's dtype, as the compiled model compares them.
    std::vector<double> draws(probabilities.size());
    RandomDraws random = RandomDraws::forNode(node);
    for (double& u : draws) u = random.uniform();
    const std::vector<double> rounded = floatValues(floatTensor(p.dtype, p.shape, draws));
    std::vector<int64_t> ones(probabilities.size());
    for (size_t i = 0; i < ones.size(); ++i) ones[i] = rounded[i] < probabilities[i] ? 1 : 0;
    const DType dtype = outputDType(node, p.dtype);
    if (isFloat(dtype)) return {floatTensor(dtype, p.shape, std::vector<double>(ones.begin(), ones.end()))};
    return {integerTensor(dtype, p.shape, ones)};
}

}  // namespace npusim::compiler::ops
