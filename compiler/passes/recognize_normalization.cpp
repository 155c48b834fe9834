// recognize-normalization: layer and RMS normalisation that an exporter spelled out op by op
// become one op again, so they lower to one row-wise kernel instead of a kernel per step:
//   LayerNormalization:  d = x - ReduceMean(x); d / Sqrt(ReduceMean(d^2) + eps) [* gamma] [+ beta]
//   npusim.RMSNormalization:  x / Sqrt(ReduceMean(x^2) + eps) [* gain]
// with the means over the last axis (kept), d^2 as Pow(d, 2) or Mul(d, d), eps, gamma, gain and
// beta constants. Every intermediate must be read only inside the pattern.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

class Matcher {
public:
    explicit Matcher(const Graph& graph) : graph_(graph) {
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

    /// The one node reading `value` (once) if it is a `kind` and `value` is no graph output.
    const Node* soleReader(ValueId value, OpKind kind) const {
        const auto it = readers_.find(value);
        if (it == readers_.end() || it->second != 1 || outputs_.contains(value)) return nullptr;
        const Node* node = readerNodes_.at(value).front();
        return node->kind == kind ? node : nullptr;
    }
    /// Whether `value` is a graph output or read by a node outside `nodes`.
    bool escapes(ValueId value, const std::set<const Node*>& nodes) const {
        if (outputs_.contains(value)) return true;
        const auto it = readerNodes_.find(value);
        return it != readerNodes_.end() &&
               std::any_of(it->second.begin(), it->second.end(), [&](const Node* n) { return !nodes.contains(n); });
    }

    /// The node producing `value` if it is a `kind` read `uses` times in all, else nullptr.
    const Node* producer(ValueId value, OpKind kind, int uses = 1) const {
        const Value& v = graph_.value(value);
        if (v.producer < 0) return nullptr;
        const Node& node = graph_.nodes[static_cast<size_t>(v.producer)];
        const auto it = readers_.find(value);
        return node.kind == kind && it != readers_.end() && it->second == uses ? &node : nullptr;
    }
    std::optional<float> scalar(ValueId value) const {
        const Value& v = graph_.value(value);
        if (!v.constant || v.dtype != DType::Fp32 || elementCount(v.shape) != 1) return std::nullopt;
        return v.constant->as<float>()[0];
    }
    /// A constant broadcasting along the last axis only ([D] or [1, ..., D]).
    bool lastAxisConstant(ValueId value, const Shape& x) const {
        const Value& v = graph_.value(value);
        if (!v.constant || v.dtype != DType::Fp32 || v.shape.empty() || v.shape.back() != x.back()) return false;
        return elementCount(v.shape) == x.back() && v.shape.size() <= x.size();
    }
    /// A ReduceMean over the last axis of its input, dims kept.
    bool lastAxisMean(const Node& node) const {
        const int64_t rank = static_cast<int64_t>(graph_.value(node.inputs[0]).shape.size());
        if (node.intAttr("keepdims", 1) == 0) return false;
        std::vector<int64_t> axes;
        if (node.attributes.contains("axes")) {
            axes = std::get<std::vector<int64_t>>(node.attributes.at("axes"));
        } else if (node.inputs.size() > 1 && node.inputs[1] != kNoValue && graph_.value(node.inputs[1]).constant) {
            const Tensor& t = *graph_.value(node.inputs[1]).constant;
            for (int64_t i = 0; i < t.elementCount(); ++i) axes.push_back(static_cast<int64_t>(t.valueAt(i)));
        }
        return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
    }
    /// The value squared: Pow(v, 2) or Mul(v, v), read `uses` times; nullopt otherwise.
    std::optional<ValueId> squared(ValueId value) const {
        if (const Node* pow = producer(value, OpKind::Pow); pow && scalar(pow->inputs[1]) == 2.0f) return pow->inputs[0];
        if (const Node* mul = producer(value, OpKind::Mul); mul && mul->inputs[0] == mul->inputs[1]) return mul->inputs[0];
        return std::nullopt;
    }
    /// Sqrt(ReduceMean(s) + eps): the mean's input s and eps.
    std::optional<std::pair<ValueId, float>> rootMean(ValueId value) const {
        const Node* root = producer(value, OpKind::Sqrt);
        const Node* add = root ? producer(root->inputs[0], OpKind::Add) : nullptr;
        if (!add) return std::nullopt;
        for (int side = 0; side < 2; ++side) {
            const Node* mean = producer(add->inputs[side], OpKind::ReduceMean);
            const std::optional<float> eps = scalar(add->inputs[1 - side]);
            if (mean && eps && lastAxisMean(*mean)) return std::pair{mean->inputs[0], *eps};
        }
        return std::nullopt;
    }
    /// The nodes `to` depends on back to the values in `stop` (exclusive), walking producers.
    void collect(ValueId to, const std::set<ValueId>& stop, std::set<const Node*>& nodes) const {
        if (stop.contains(to) || graph_.value(to).producer < 0) return;
        const Node* node = &graph_.nodes[static_cast<size_t>(graph_.value(to).producer)];
        if (!nodes.insert(node).second) return;
        for (ValueId id : node->inputs) {
            if (id != kNoValue && !graph_.value(id).constant) collect(id, stop, nodes);
        }
    }

    const Graph& graph() const { return graph_; }

private:
    const Graph& graph_;
    std::map<ValueId, int> readers_;  ///< reads by nodes (an input read twice counts twice) and outputs
    std::map<ValueId, std::vector<const Node*>> readerNodes_;
    std::set<ValueId> outputs_;
};

/// A recognised normalisation: its replacement node (input 1, the scale, kNoValue for a scale
/// of ones of length `width`), and the nodes it replaces.
struct Match {
    Node replacement;
    std::set<const Node*> nodes;
    int64_t width = 0;
};

/// The optional affine tail after the normalised value n: [* scale] [+ bias]; returns the
/// final value and the constants (kNoValue when absent).
ValueId affineTail(const Matcher& m, ValueId n, const Shape& x, ValueId& scale, ValueId& bias) {
    scale = bias = kNoValue;
    ValueId value = n;
    if (const Node* mul = m.soleReader(value, OpKind::Mul)) {
        const ValueId other = mul->inputs[0] == value ? mul->inputs[1] : mul->inputs[0];
        if (m.lastAxisConstant(other, x)) {
            scale = other;
            value = mul->outputs[0];
        }
    }
    if (const Node* add = m.soleReader(value, OpKind::Add)) {
        const ValueId other = add->inputs[0] == value ? add->inputs[1] : add->inputs[0];
        if (m.lastAxisConstant(other, x)) {
            bias = other;
            value = add->outputs[0];
        }
    }
    return value;
}

std::optional<Match> matchAt(const Matcher& m, const Node& div) {
    if (div.kind != OpKind::Div) return std::nullopt;
    const Graph& graph = m.graph();
    const std::optional<std::pair<ValueId, float>> root = m.rootMean(div.inputs[1]);
    if (!root) return std::nullopt;
    const ValueId numerator = div.inputs[0];
    const Shape& x0 = graph.value(numerator).shape;
    if (x0.empty() || graph.value(numerator).dtype != DType::Fp32) return std::nullopt;
    Match match;
    ValueId scale = kNoValue, bias = kNoValue, x = kNoValue;
    OpKind kind = OpKind::RmsNormalization;
    const std::optional<ValueId> squaredOf = m.squared(root->first);
    if (!squaredOf || *squaredOf != numerator) return std::nullopt;
    // x - mean(x) is read by the division and the square (twice when it is Mul(d, d)).
    const bool squareIsMul = m.producer(root->first, OpKind::Mul) != nullptr;
    const Node* sub = m.producer(numerator, OpKind::Sub, squareIsMul ? 3 : 2);
    const Node* mean = sub ? m.producer(sub->inputs[1], OpKind::ReduceMean) : nullptr;
    if (mean && mean->inputs[0] == sub->inputs[0] && m.lastAxisMean(*mean)) {
        kind = OpKind::LayerNormalization;  // the numerator is x - mean(x)
        x = sub->inputs[0];
    } else {
        x = numerator;  // RMS: the numerator is x itself
    }
    const ValueId result = affineTail(m, div.outputs[0], x0, scale, bias);
    m.collect(result, {x}, match.nodes);
    // Every value made inside the pattern, but the result, must be read only inside it.
    for (const Node* node : match.nodes) {
        for (ValueId out : node->outputs) {
            if (out != result && m.escapes(out, match.nodes)) return std::nullopt;
        }
    }
    if (kind == OpKind::RmsNormalization && bias != kNoValue) return std::nullopt;  // not an RMS form
    match.width = x0.back();
    std::vector<ValueId> inputs = {x, scale};
    if (bias != kNoValue) inputs.push_back(bias);
    match.replacement = Node{div.name, kind, inputs, {result}, {{"axis", int64_t{-1}}, {"epsilon", static_cast<double>(root->second)}}};
    return match;
}

}  // namespace

void recognizeNormalization(Graph& graph) {
    GraphRewriter rewriter(graph);
    const Matcher matcher(graph);
    // Matches on the graph as it stands, anchored at the node producing each one's result.
    std::map<const Node*, Match> byAnchor;
    std::set<const Node*> replaced;
    for (const Node& node : graph.nodes) {
        std::optional<Match> match = matchAt(matcher, node);
        if (!match || std::any_of(match->nodes.begin(), match->nodes.end(), [&](const Node* n) { return replaced.contains(n); })) {
            continue;
        }
        const ValueId result = match->replacement.outputs[0];
        const Node* anchor = &graph.nodes[static_cast<size_t>(graph.value(result).producer)];
        replaced.insert(match->nodes.begin(), match->nodes.end());
        byAnchor.emplace(anchor, std::move(*match));
    }
    if (byAnchor.empty()) return;
    // Names of the nodes to drop, and the replacement at each anchor (the node list is rebuilt
    // from copies, so nodes are known by name).
    std::set<std::string> dropped;
    std::map<std::string, Node> replacements;
    std::map<std::string, int64_t> widths;
    for (const auto& [anchor, match] : byAnchor) {
        for (const Node* node : match.nodes) dropped.insert(node->name);
        replacements.emplace(anchor->name, match.replacement);
        widths.emplace(anchor->name, match.width);
    }
    rewriter.run([&](const Node& node) {
        if (!dropped.contains(node.name)) return false;
        if (const auto it = replacements.find(node.name); it != replacements.end()) {
            Node& r = it->second;
            if (r.inputs[1] == kNoValue) {  // no scale: ones
                Tensor ones = Tensor::zeros(DType::Fp32, {widths.at(node.name)});
                for (float& v : ones.as<float>()) v = 1.0f;
                r.inputs[1] = rewriter.constant(r.name + ".ones", std::move(ones));
            }
            rewriter.add(r.kind, r.name, r.inputs, r.attributes, r.outputs);
        }
        return true;
    });
}

}  // namespace npusim::compiler
