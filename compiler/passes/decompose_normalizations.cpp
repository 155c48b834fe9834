// decompose-normalizations: the per-channel normalisations become ops the vector unit runs.
// InstanceNormalization is a LayerNormalization over the spatial dims (axis 2) whose scale and
// bias, reshaped to [C, 1, ...], broadcast per channel. MeanVarianceNormalization is ONNX's
// function body: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9), the means reduced over its axes.
#include "compiler/graph/onnx_element_types.h"
#include "compiler/graph/op_attributes.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

void instanceNormalization(GraphRewriter& r, const Node& node) {
    const Shape& x = r.graph().value(node.inputs[0]).shape;
    std::vector<int64_t> perChannel(x.size() - 1, 1);
    perChannel[0] = x[1];
    const ValueId shape = r.constant(node.name + ".per_channel", int64Tensor(perChannel));
    const ValueId scale = r.add(OpKind::Reshape, node.name + ".scale", {node.inputs[1], shape})[0];
    const ValueId bias = r.add(OpKind::Reshape, node.name + ".bias", {node.inputs[2], shape})[0];
    r.add(OpKind::LayerNormalization, node.name + ".normalize", {node.inputs[0], scale, bias},
          {{"axis", int64_t{2}}, {"epsilon", node.floatAttr("epsilon", 1e-5)}}, {node.outputs[0]});
}

void meanVarianceNormalization(GraphRewriter& r, const Node& node) {
    // Copies: adding ops grows the value table, which a reference into it would not survive.
    const DType dtype = r.graph().value(node.inputs[0]).dtype;
    const auto rank = static_cast<int64_t>(r.graph().value(node.inputs[0]).shape.size());
    const ValueId x = node.inputs[0];
    const std::vector<int64_t> axes = ops::meanVarianceAxes(node, rank);
    const auto add = [&](OpKind kind, const std::string& suffix, std::vector<ValueId> inputs,
                         std::map<std::string, Attribute> attributes = {}) {
        return r.add(kind, node.name + "." + suffix, std::move(inputs), std::move(attributes))[0];
    };
    const auto mean = [&](const std::string& suffix, ValueId of) {
        return add(OpKind::ReduceMean, suffix, {of}, {{"axes", axes}, {"keepdims", int64_t{1}}});
    };
    const ValueId average = mean("mean", x);
    const ValueId meanOfSquares = mean("mean_of_squares", add(OpKind::Mul, "squares", {x, x}));
    const ValueId variance = add(OpKind::Sub, "variance", {meanOfSquares, add(OpKind::Mul, "mean_squared", {average, average})});
    // 1e-9 in X's dtype (0 in fp16, as ONNX's CastLike makes it), folded to a constant.
    Tensor epsilon = Tensor::zeros(DType::Fp32, {});
    epsilon.as<float>()[0] = 1e-9f;
    const ValueId typedEpsilon =
        add(OpKind::Cast, "epsilon", {r.constant(node.name + ".epsilon_fp32", std::move(epsilon))},
            {{"to", onnxElementTypeOf(dtype)}});
    const ValueId deviation = add(OpKind::Add, "deviation", {add(OpKind::Sqrt, "sqrt", {variance}), typedEpsilon});
    r.add(OpKind::Div, node.name + ".normalize", {add(OpKind::Sub, "centred", {x, average}), deviation}, {},
          {node.outputs[0]});
}

}  // namespace

void decomposeNormalizations(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        switch (node.kind) {
            case OpKind::InstanceNormalization: instanceNormalization(rewriter, node); return true;
            case OpKind::MeanVarianceNormalization: meanVarianceNormalization(rewriter, node); return true;
            default: return false;
        }
    });
}

}  // namespace npusim::compiler
