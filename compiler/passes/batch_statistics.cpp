// batch-statistics: a BatchNormalization in training mode normalises with the batch's mean and
// (population) variance per channel, spelled out as reductions over every dim but the channels
// and elementwise ops on the NPU; its running statistics, when the model reads them, are
// input * momentum + batch * (1 - momentum).
#include "compiler/graph/elementwise.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {

void batchStatistics(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (node.kind != OpKind::BatchNormalization || node.intAttr("training_mode", 0) == 0) return false;
        const Shape shape = graph.value(node.inputs[0]).shape;
        const DType dtype = graph.value(node.inputs[0]).dtype;
        const auto rank = static_cast<int64_t>(shape.size());
        std::vector<int64_t> axes{0}, perChannel(static_cast<size_t>(rank), 1);
        for (int64_t d = 2; d < rank; ++d) axes.push_back(d);
        perChannel[1] = shape[1];
        const auto scalar = [&](const std::string& name, double value) {
            return rewriter.constant(node.name + "." + name, ops::floatTensor(dtype, {}, std::vector<double>{value}));
        };
        const auto add = [&](OpKind kind, const std::string& name, std::vector<ValueId> inputs, std::map<std::string, Attribute> attributes = {},
                             std::vector<ValueId> outputs = {}) {
            return rewriter.add(kind, node.name + "." + name, std::move(inputs), std::move(attributes), std::move(outputs))[0];
        };
        const std::map<std::string, Attribute> overBatch = {{"axes", axes}, {"keepdims", int64_t{1}}};
        const ValueId mean = add(OpKind::ReduceMean, "mean", {node.inputs[0]}, overBatch);
        const ValueId centered = add(OpKind::Sub, "centered", {node.inputs[0], mean});
        const ValueId variance = add(OpKind::ReduceMean, "variance", {add(OpKind::Mul, "squares", {centered, centered})}, overBatch);
        const ValueId deviation = add(OpKind::Sqrt, "deviation", {add(OpKind::Add, "shifted", {variance, scalar("epsilon", node.floatAttr("epsilon", 1e-5))})});
        const ValueId channelShape = rewriter.constant(node.name + ".channel_shape", int64Tensor(perChannel));
        const ValueId scale = add(OpKind::Reshape, "scale", {node.inputs[1], channelShape});
        const ValueId bias = add(OpKind::Reshape, "bias", {node.inputs[2], channelShape});
        const ValueId normalized = add(OpKind::Div, "normalized", {centered, deviation});
        add(OpKind::Add, "y", {add(OpKind::Mul, "scaled", {normalized, scale}), bias}, {}, {node.outputs[0]});
        const double momentum = node.floatAttr("momentum", 0.9);
        const ValueId flat = rewriter.constant(node.name + ".flat", int64Tensor({shape[1]}));
        const ValueId batchStatistics[] = {mean, variance};
        for (size_t i = 1; i < node.outputs.size(); ++i) {
            const std::string which = i == 1 ? "running_mean" : "running_var";
            const ValueId kept = add(OpKind::Mul, which + ".kept", {node.inputs[2 + i], scalar(which + ".momentum", momentum)});
            const ValueId batch = add(OpKind::Reshape, which + ".batch", {batchStatistics[i - 1], flat});
            const ValueId taken = add(OpKind::Mul, which + ".taken", {batch, scalar(which + ".rate", 1 - momentum)});
            add(OpKind::Add, which, {kept, taken}, {}, {node.outputs[i]});
        }
        return true;
    });
}

}  // namespace npusim::compiler
