// Value readers and producers for pattern recognition, and match replacement.
#include "compiler/passes/pattern_matcher.h"

#include <algorithm>

namespace npusim::compiler {

PatternMatcher::PatternMatcher(const Graph& graph) : graph_(graph) {
    for (const Node& node : graph.nodes) {
        for (ValueId id : node.inputs) {
            if (id == kNoValue) continue;
            ++readers_[id];
            if (readerNodes_[id].empty() || readerNodes_[id].back() != &node) readerNodes_[id].push_back(&node);
        }
    }
    for (ValueId id : graph.outputs) {
        ++readers_[id];
        outputs_.insert(id);
    }
}

const Node* PatternMatcher::soleReader(ValueId value, OpKind kind) const {
    const auto it = readers_.find(value);
    if (it == readers_.end() || it->second != 1 || outputs_.contains(value)) return nullptr;
    const Node* node = readerNodes_.at(value).front();
    return node->kind == kind ? node : nullptr;
}

bool PatternMatcher::escapes(ValueId value, const std::set<const Node*>& nodes) const {
    if (outputs_.contains(value)) return true;
    const auto it = readerNodes_.find(value);
    return it != readerNodes_.end() &&
           std::any_of(it->second.begin(), it->second.end(), [&](const Node* n) { return !nodes.contains(n); });
}

const Node* PatternMatcher::producer(ValueId value, OpKind kind, int uses) const {
    const Value& v = graph_.value(value);
    if (v.producer < 0) return nullptr;
    const Node& node = graph_.nodes[static_cast<size_t>(v.producer)];
    const auto it = readers_.find(value);
    return node.kind == kind && it != readers_.end() && it->second == uses ? &node : nullptr;
}

std::optional<float> PatternMatcher::scalar(ValueId value) const {
    const Value& v = graph_.value(value);
    if (!v.constant || v.dtype != DType::Fp32 || elementCount(v.shape) != 1) return std::nullopt;
    return v.constant->as<float>()[0];
}

void PatternMatcher::collect(ValueId to, const std::set<ValueId>& stop, std::set<const Node*>& nodes) const {
    if (stop.contains(to) || graph_.value(to).producer < 0) return;
    const Node* node = &graph_.nodes[static_cast<size_t>(graph_.value(to).producer)];
    if (!nodes.insert(node).second) return;
    for (ValueId id : node->inputs) {
        if (id != kNoValue && !graph_.value(id).constant) collect(id, stop, nodes);
    }
}

bool PatternMatcher::selfContained(const std::set<const Node*>& nodes, ValueId result) const {
    for (const Node* node : nodes) {
        for (ValueId out : node->outputs) {
            if (out != result && escapes(out, nodes)) return false;
        }
    }
    return true;
}

void replaceMatches(Graph& graph, std::vector<PatternMatch> matches,
                    const std::function<void(GraphRewriter&, Node&)>& prepare) {
    // Each match anchored at the node producing its result; the node list is rebuilt from
    // copies, so nodes are known by name from here on.
    std::set<const Node*> taken;
    std::set<std::string> dropped;
    std::map<std::string, Node> replacements;
    for (PatternMatch& match : matches) {
        if (std::any_of(match.nodes.begin(), match.nodes.end(), [&](const Node* n) { return taken.contains(n); })) {
            continue;
        }
        taken.insert(match.nodes.begin(), match.nodes.end());
        for (const Node* node : match.nodes) dropped.insert(node->name);
        const ValueId result = match.replacement.outputs[0];
        const Node& anchor = graph.nodes[static_cast<size_t>(graph.value(result).producer)];
        replacements.emplace(anchor.name, std::move(match.replacement));
    }
    if (replacements.empty()) return;
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (!dropped.contains(node.name)) return false;
        if (const auto it = replacements.find(node.name); it != replacements.end()) {
            Node& r = it->second;
            if (prepare) prepare(rewriter, r);
            rewriter.add(r.kind, r.name, r.inputs, r.attributes, r.outputs);
        }
        return true;
    });
}

}  // namespace npusim::compiler
