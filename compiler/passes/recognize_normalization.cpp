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
#include "compiler/passes/pattern_matcher.h"

namespace npusim::compiler {
namespace {

/// The normalisation-specific questions on top of the shared matcher.
class Matcher : public PatternMatcher {
public:
    using PatternMatcher::PatternMatcher;

    /// A constant broadcasting along the last axis only ([D] or [1, ..., D]).
    bool lastAxisConstant(ValueId value, const Shape& x) const {
        const Value& v = graph().value(value);
        if (!v.constant || v.dtype != DType::Fp32 || v.shape.empty() || v.shape.back() != x.back()) return false;
        return elementCount(v.shape) == x.back() && v.shape.size() <= x.size();
    }
    /// A ReduceMean over the last axis of its input, dims kept.
    bool lastAxisMean(const Node& node) const {
        const int64_t rank = static_cast<int64_t>(graph().value(node.inputs[0]).shape.size());
        if (node.intAttr("keepdims", 1) == 0) return false;
        std::vector<int64_t> axes;
        if (node.attributes.contains("axes")) {
            axes = std::get<std::vector<int64_t>>(node.attributes.at("axes"));
        } else if (node.inputs.size() > 1 && node.inputs[1] != kNoValue && graph().value(node.inputs[1]).constant) {
            const Tensor& t = *graph().value(node.inputs[1]).constant;
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
};

/// A recognised normalisation; a replacement without a scale (input 1 kNoValue) gets ones
/// of length `width`.
struct Match {
    PatternMatch pattern;
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
    m.collect(result, {x}, match.pattern.nodes);
    // Every value made inside the pattern, but the result, must be read only inside it.
    if (!m.selfContained(match.pattern.nodes, result)) return std::nullopt;
    if (kind == OpKind::RmsNormalization && bias != kNoValue) return std::nullopt;  // not an RMS form
    match.width = x0.back();
    std::vector<ValueId> inputs = {x, scale};
    if (bias != kNoValue) inputs.push_back(bias);
    match.pattern.replacement = Node{div.name, kind, inputs, {result}, {{"axis", int64_t{-1}}, {"epsilon", static_cast<double>(root->second)}}};
    return match;
}

}  // namespace

void recognizeNormalization(Graph& graph) {
    const Matcher matcher(graph);
    std::vector<PatternMatch> matches;
    std::map<std::string, int64_t> widths;  ///< of the replacements needing a scale of ones
    for (const Node& node : graph.nodes) {
        std::optional<Match> match = matchAt(matcher, node);
        if (!match) continue;
        widths[match->pattern.replacement.name] = match->width;
        matches.push_back(std::move(match->pattern));
    }
    replaceMatches(graph, std::move(matches), [&](GraphRewriter& rewriter, Node& r) {
        if (r.inputs[1] != kNoValue) return;
        Tensor ones = Tensor::zeros(DType::Fp32, {widths.at(r.name)});
        for (float& v : ones.as<float>()) v = 1.0f;
        r.inputs[1] = rewriter.constant(r.name + ".ones", std::move(ones));
    });
}

}  // namespace npusim::compiler
