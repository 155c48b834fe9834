// split-softmax-cross-entropy: SoftmaxCrossEntropyLoss is ONNX's function of LogSoftmax along
// the classes (axis 1) and NegativeLogLikelihoodLoss of its result, with the same weight,
// ignore_index and reduction. The LogSoftmax runs on the vector unit; its result is the node's
// log_prob output when the model reads it.
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {

void splitSoftmaxCrossEntropy(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (node.kind != OpKind::SoftmaxCrossEntropyLoss) return false;
        std::vector<ValueId> logProbabilities;
        if (node.outputs.size() > 1) logProbabilities.push_back(node.outputs[1]);
        const ValueId logSoftmax = rewriter.add(OpKind::LogSoftmax, node.name + ".log_softmax", {node.inputs[0]},
                                                {{"axis", int64_t{1}}}, logProbabilities)[0];
        std::vector<ValueId> inputs = node.inputs;
        inputs[0] = logSoftmax;
        std::map<std::string, Attribute> attributes = node.attributes;
        rewriter.add(OpKind::NegativeLogLikelihoodLoss, node.name + ".loss", std::move(inputs), std::move(attributes),
                     {node.outputs[0]});
        return true;
    });
}

}  // namespace npusim::compiler
