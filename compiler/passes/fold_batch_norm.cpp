// fold-batch-norm: an inference-mode BatchNormalization whose input is a Conv's result, read by
// nothing else, is folded into the Conv's weights and bias when all of them are constants:
// y = (conv(x, W) + B - mean) * s + beta with s = scale / sqrt(var + epsilon) is
// conv(x, W * s) + (B - mean) * s + beta, per output channel.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

const Tensor* constantOf(const Graph& graph, const Node& node, size_t index) {
    if (index >= node.inputs.size() || node.inputs[index] == kNoValue) return nullptr;
    const Value& value = graph.value(node.inputs[index]);
    return value.constant ? &*value.constant : nullptr;
}

/// The BatchNormalization that can fold into `conv`, or nullptr.
const Node* foldableNorm(const Graph& graph, const Node& conv, const std::map<ValueId, std::vector<const Node*>>& readers) {
    const ValueId y = conv.outputs[0];
    const auto it = readers.find(y);
    if (it == readers.end() || it->second.size() != 1) return nullptr;
    const Node& norm = *it->second[0];
    if (norm.kind != OpKind::BatchNormalization || norm.inputs[0] != y || norm.outputs.size() != 1) return nullptr;
    if (std::find(graph.outputs.begin(), graph.outputs.end(), y) != graph.outputs.end()) return nullptr;
    if (!constantOf(graph, conv, 1) || (conv.inputs.size() > 2 && conv.inputs[2] != kNoValue && !constantOf(graph, conv, 2))) {
        return nullptr;
    }
    for (size_t i = 1; i <= 4; ++i) {
        const Tensor* parameter = constantOf(graph, norm, i);
        if (!parameter || parameter->dtype != DType::Fp32) return nullptr;
    }
    return &norm;
}

}  // namespace

void foldBatchNorm(Graph& graph) {
    std::map<ValueId, std::vector<const Node*>> readers;
    for (const Node& node : graph.nodes) {
        for (ValueId id : node.inputs) {
            if (id != kNoValue) readers[id].push_back(&node);
        }
    }
    // The folds, decided on the graph as it stands: conv name -> its norm.
    std::map<std::string, const Node*> folds;
    for (const Node& node : graph.nodes) {
        if (node.kind != OpKind::Conv) continue;
        if (const Node* norm = foldableNorm(graph, node, readers)) folds[node.name] = norm;
    }
    if (folds.empty()) return;
    // Copies of what the rewrite reads: the rewriter rebuilds the node list.
    std::map<std::string, std::pair<Node, Node>> pairs;
    for (const auto& [name, norm] : folds) {
        const auto conv = std::find_if(graph.nodes.begin(), graph.nodes.end(), [&](const Node& n) { return n.name == name; });
        pairs.emplace(name, std::make_pair(*conv, *norm));
    }
    std::set<std::string> folded;
    for (const auto& [name, pair] : pairs) folded.insert(pair.second.name);

    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (node.kind == OpKind::BatchNormalization && folded.contains(node.name)) return true;  // folded away
        const auto it = node.kind == OpKind::Conv ? pairs.find(node.name) : pairs.end();
        if (it == pairs.end()) return false;
        const Node& norm = it->second.second;
        const Tensor& w = *constantOf(graph, node, 1);
        const Tensor* b = constantOf(graph, node, 2);
        const auto scale = constantOf(graph, norm, 1)->as<float>(), beta = constantOf(graph, norm, 2)->as<float>();
        const auto mean = constantOf(graph, norm, 3)->as<float>(), var = constantOf(graph, norm, 4)->as<float>();
        const auto epsilon = static_cast<float>(norm.floatAttr("epsilon", 1e-5));
        const int64_t channels = w.shape[0], perChannel = elementCount(w.shape) / channels;
        Tensor weights = w;
        Tensor bias = Tensor::zeros(DType::Fp32, {channels});
        for (int64_t m = 0; m < channels; ++m) {
            const float s = scale[m] / std::sqrt(var[m] + epsilon);
            for (int64_t i = 0; i < perChannel; ++i) weights.as<float>()[m * perChannel + i] *= s;
            bias.as<float>()[m] = ((b ? b->as<float>()[m] : 0.0f) - mean[m]) * s + beta[m];
        }
        rewriter.add(OpKind::Conv, node.name,
                     {node.inputs[0], rewriter.constant(node.name + ".weights_folded", std::move(weights)),
                      rewriter.constant(node.name + ".bias_folded", std::move(bias))},
                     node.attributes, {norm.outputs[0]});
        return true;
    });
}

}  // namespace npusim::compiler
