// draw-random-numbers: the random draws of Bernoulli and of Dropout in training mode become
// constants (compiler/graph/random_draws.h), compared on the NPU with the op's probabilities or
// ratio: Bernoulli(p) is Cast(Less(u, p)); a training Dropout keeps x * mask / (1 - ratio) with
// mask = (u >= ratio), selected by its training_mode where that is known only at run time.
#include "compiler/graph/elementwise.h"
#include "compiler/graph/onnx_element_types.h"
#include "compiler/graph/random_draws.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

/// The node's draws, one per element of `shape`, rounded to `dtype`.
Tensor draws(const Node& node, DType dtype, const Shape& shape) {
    RandomDraws random = RandomDraws::forNode(node);
    std::vector<double> values(static_cast<size_t>(elementCount(shape)));
    for (double& u : values) u = random.uniform();
    return ops::floatTensor(dtype, shape, values);
}

Tensor scalarOf(DType dtype, double value) { return ops::floatTensor(dtype, {}, std::vector<double>{value}); }

ValueId castTo(GraphRewriter& rewriter, const std::string& name, ValueId value, DType dtype, std::vector<ValueId> outputs = {}) {
    if (rewriter.graph().value(value).dtype == dtype && outputs.empty()) return value;
    if (rewriter.graph().value(value).dtype == dtype) return rewriter.add(OpKind::Identity, name, {value}, {}, std::move(outputs))[0];
    return rewriter.add(OpKind::Cast, name, {value}, {{"to", onnxElementTypeOf(dtype)}}, std::move(outputs))[0];
}

void lowerBernoulli(GraphRewriter& rewriter, const Node& node) {
    const Value& p = rewriter.graph().value(node.inputs[0]);
    const ValueId u = rewriter.constant(node.name + ".draws", draws(node, p.dtype, p.shape));
    const ValueId below = rewriter.add(OpKind::Less, node.name + ".below", {u, node.inputs[0]})[0];
    castTo(rewriter, node.name + ".cast", below, rewriter.graph().value(node.outputs[0]).dtype, {node.outputs[0]});
}

void lowerTrainingDropout(GraphRewriter& rewriter, const Node& node) {
    Graph& graph = rewriter.graph();
    const ValueId x = node.inputs[0];
    const DType dtype = graph.value(x).dtype;
    const Shape shape = graph.value(x).shape;
    const bool hasRatio = node.inputs.size() > 1 && node.inputs[1] != kNoValue;
    const ValueId ratio = hasRatio ? node.inputs[1] : rewriter.constant(node.name + ".ratio", scalarOf(dtype, 0.5));
    const DType ratioType = graph.value(ratio).dtype;
    const ValueId u = rewriter.constant(node.name + ".draws", draws(node, ratioType, shape));
    const ValueId kept = rewriter.add(OpKind::GreaterOrEqual, node.name + ".kept", {u, ratio})[0];
    const ValueId one = rewriter.constant(node.name + ".one", scalarOf(ratioType, 1.0));
    const ValueId remaining = rewriter.add(OpKind::Sub, node.name + ".remaining", {one, ratio})[0];
    const ValueId scale = castTo(rewriter, node.name + ".scale_cast", rewriter.add(OpKind::Div, node.name + ".scale", {one, remaining})[0], dtype);
    const ValueId masked = rewriter.add(OpKind::Mul, node.name + ".masked", {x, castTo(rewriter, node.name + ".mask_cast", kept, dtype)})[0];
    const ValueId training = node.inputs[2];
    const bool knownTraining = graph.value(training).constant.has_value();
    if (knownTraining) {
        rewriter.add(OpKind::Mul, node.name + ".scaled", {masked, scale}, {}, {node.outputs[0]});
    } else {
        const ValueId scaled = rewriter.add(OpKind::Mul, node.name + ".scaled", {masked, scale})[0];
        rewriter.add(OpKind::Where, node.name + ".select", {training, scaled, x}, {}, {node.outputs[0]});
    }
    if (node.outputs.size() < 2) return;
    if (knownTraining) {
        rewriter.add(OpKind::Identity, node.name + ".mask", {kept}, {}, {node.outputs[1]});
    } else {
        Tensor yes = Tensor::zeros(DType::Bool, {});
        yes.bytes[0] = std::byte{1};
        rewriter.add(OpKind::Where, node.name + ".mask", {training, kept, rewriter.constant(node.name + ".all", std::move(yes))}, {},
                     {node.outputs[1]});
    }
}

/// A Dropout that may run in training mode: training_mode given, and not a constant false.
bool mayTrain(const Graph& graph, const Node& node) {
    if (node.kind != OpKind::Dropout || node.inputs.size() < 3 || node.inputs[2] == kNoValue) return false;
    const Value& training = graph.value(node.inputs[2]);
    return !training.constant || training.constant->valueAt(0) != 0;
}

}  // namespace

void drawRandomNumbers(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (node.kind == OpKind::Bernoulli) {
            lowerBernoulli(rewriter, node);
            return true;
        }
        if (mayTrain(graph, node)) {
            lowerTrainingDropout(rewriter, node);
            return true;
        }
        return false;
    });
}

}  // namespace npusim::compiler
