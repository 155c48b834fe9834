// Present outputs as the entries a decoder step appends to its KV cache.
#include "compiler/passes/kv_cache_outputs.h"

#include <algorithm>
#include <limits>
#include <map>

#include "arch/error.h"
#include "compiler/graph/op_support.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {

void presentsAsAppends(Graph& graph, std::span<const std::pair<std::string, std::string>> pairs) {
    for (const auto& [past, present] : pairs) {
        const auto output = std::find_if(graph.outputs.begin(), graph.outputs.end(),
                                         [&](ValueId id) { return graph.value(id).name == present; });
        if (output == graph.outputs.end()) throw InputError("the model has no output '" + present + "'");
        const int producer = graph.value(*output).producer;
        const Node* concat = producer < 0 ? nullptr : &graph.nodes.at(static_cast<size_t>(producer));
        const bool appends = concat && concat->kind == OpKind::Concat && concat->inputs.size() == 2 &&
                             graph.value(concat->inputs[0]).name == past && graph.value(concat->inputs[0]).producer < 0;
        if (!appends) {
            throw InputError("the present output '" + present + "' is not the past input '" + past +
                             "' concatenated with the new entries: the cache cannot be appended in place");
        }
        const ValueId added = concat->inputs[1];
        if (std::find(graph.outputs.begin(), graph.outputs.end(), added) != graph.outputs.end() ||
            std::find(graph.inputs.begin(), graph.inputs.end(), added) != graph.inputs.end()) {
            throw InputError("the new entries of '" + present + "' are themselves a graph input or output");
        }
        graph.value(*output).name = present + "/with_past";
        graph.value(*output).symbols.clear();
        graph.value(added).name = present;
        *output = added;
    }
}

namespace {

/// Whether `node` computes each position along `axis` of its output from the same position of
/// its first input alone: a MatMul by a matrix, or a LayerNormalization over the last axis.
bool positionWise(const Graph& graph, const Node& node, size_t axis) {
    if (node.outputs.size() != 1) return false;
    const auto rank = static_cast<int64_t>(graph.value(node.outputs[0]).shape.size());
    if (static_cast<int64_t>(axis) >= rank - 1 || graph.value(node.inputs[0]).shape.size() != static_cast<size_t>(rank)) {
        return false;
    }
    if (node.kind == OpKind::MatMul) return graph.value(node.inputs[1]).shape.size() == 2;
    if (node.kind == OpKind::LayerNormalization) return ops::normalizeAxis(node, node.intAttr("axis", -1), rank) == rank - 1;
    return false;
}

}  // namespace

void lastPositionOnly(Graph& graph, const std::string& name, size_t axis) {
    const auto output = std::find_if(graph.outputs.begin(), graph.outputs.end(),
                                     [&](ValueId id) { return graph.value(id).name == name; });
    if (output == graph.outputs.end()) throw InputError("the model has no output '" + name + "'");
    if (axis + 1 >= graph.value(*output).shape.size()) {
        throw InputError("the output '" + name + "' has no position axis " + std::to_string(axis) + " before its last");
    }
    // The position-wise producers, the output's first, each read by the next one only.
    const std::map<ValueId, int> readers = graph.readerCounts();
    std::vector<std::string> chain;
    ValueId source = *output;
    for (;;) {
        const int producer = graph.value(source).producer;
        if (producer < 0) break;
        const Node& node = graph.nodes[static_cast<size_t>(producer)];
        const bool private_ = source == *output || (readers.at(source) == 1 &&
                                                    std::find(graph.outputs.begin(), graph.outputs.end(), source) == graph.outputs.end());
        if (!private_ || !positionWise(graph, node, axis)) break;
        chain.push_back(node.name);
        source = node.inputs[0];
    }
    const auto slice = [&](GraphRewriter& rewriter, ValueId from, std::vector<ValueId> to) {
        const std::string base = name + ".last_position";
        return rewriter.add(OpKind::Slice, base,
                            {from, rewriter.constant(base + ".starts", int64Tensor({-1})),
                             rewriter.constant(base + ".ends", int64Tensor({std::numeric_limits<int64_t>::max()})),
                             rewriter.constant(base + ".axes", int64Tensor({static_cast<int64_t>(axis)}))},
                            {}, std::move(to))[0];
    };
    GraphRewriter rewriter(graph);
    graph.value(*output).symbols.clear();
    if (chain.empty()) {  // no position-wise producer: the output itself is sliced after it
        const ValueId all = *output;
        const int producer = graph.value(all).producer;
        graph.value(all).name = name + "/all_positions";
        const std::string kept = producer < 0 ? std::string() : graph.nodes[static_cast<size_t>(producer)].name;
        rewriter.run([&](const Node& node) {
            if (node.name != kept) return false;
            rewriter.add(node.kind, node.name, node.inputs, node.attributes, node.outputs, node.outputs.size());
            *output = slice(rewriter, all, {});
            return true;
        });
        if (*output == all) throw InputError("the output '" + name + "' is not computed by the model");
        graph.value(*output).name = name;
        return;
    }
    // The chain runs again on the sliced source, its last node writing the output.
    ValueId current = kNoValue;
    rewriter.run([&](const Node& node) {
        const auto at = std::find(chain.begin(), chain.end(), node.name);
        if (at == chain.end()) return false;
        if (current == kNoValue) current = slice(rewriter, node.inputs[0], {});
        std::vector<ValueId> inputs = node.inputs;
        inputs[0] = current;
        std::vector<ValueId> outputs;
        if (at == chain.begin()) outputs = node.outputs;
        current = rewriter.add(node.kind, node.name + ".last_position", inputs, node.attributes, outputs)[0];
        return true;
    });
}

}  // namespace npusim::compiler
