// recognize-activations: GELU and HardSwish that an exporter spelled out op by op become one
// op again (one step in reports and the mapping, one short vector program):
//   npusim.Gelu:  x * (1 + Erf(x / sqrt(2))) * 0.5   (x / sqrt(2) also as x * (1 / sqrt(2));
//                 the three factors multiplied in any order)
//   HardSwish:    x * HardSigmoid(x) with alpha 1/6 and beta 0.5, or
//                 x * Clip(x + 3, 0, 6) / 6   (/ 6 also as * (1 / 6), before or after the product)
// Every intermediate must be read only inside the pattern.
#include <cmath>

#include "compiler/passes/graph_pass.h"
#include "compiler/passes/pattern_matcher.h"

namespace npusim::compiler {
namespace {

bool near(std::optional<float> value, double expected) {
    return value && std::abs(*value - expected) <= 1e-4 * std::abs(expected);
}

/// The operand of a binary node that is not `value`.
ValueId otherOperand(const Node& node, ValueId value) {
    return node.inputs[0] == value ? node.inputs[1] : node.inputs[0];
}

class ActivationMatcher : public PatternMatcher {
public:
    using PatternMatcher::PatternMatcher;

    /// The Mul reading `value` alone whose other operand is the constant `factor`.
    const Node* scaledBy(ValueId value, double factor) const {
        const Node* mul = soleReader(value, OpKind::Mul);
        return mul && near(scalar(otherOperand(*mul, value)), factor) ? mul : nullptr;
    }
    /// The Div reading `value` alone by the constant `divisor`.
    const Node* dividedBy(ValueId value, double divisor) const {
        const Node* div = soleReader(value, OpKind::Div);
        return div && div->inputs[0] == value && near(scalar(div->inputs[1]), divisor) ? div : nullptr;
    }
    /// `value` scaled by 1 / divisor, as a Div or a Mul: the scaled value.
    std::optional<ValueId> scaledDown(ValueId value, double divisor) const {
        if (const Node* div = dividedBy(value, divisor)) return div->outputs[0];
        if (const Node* mul = scaledBy(value, 1.0 / divisor)) return mul->outputs[0];
        return std::nullopt;
    }
    /// The Mul reading `value` alone together with `other`.
    const Node* timesValue(ValueId value, ValueId other) const {
        const Node* mul = soleReader(value, OpKind::Mul);
        return mul && otherOperand(*mul, value) == other ? mul : nullptr;
    }

    std::optional<PatternMatch> finish(OpKind kind, ValueId x, ValueId result, const std::string& name) const {
        PatternMatch match;
        collect(result, {x}, match.nodes);
        if (!selfContained(match.nodes, result)) return std::nullopt;
        match.replacement = Node{name, kind, {x}, {result}, {}};
        return match;
    }

    /// From an Erf node: x / sqrt(2) before it, (e + 1), x and 0.5 after.
    std::optional<PatternMatch> gelu(const Node& erf) const {
        const Value& in = graph().value(erf.inputs[0]);
        if (in.dtype != DType::Fp32 || in.producer < 0) return std::nullopt;
        const Node& scale = graph().nodes[static_cast<size_t>(in.producer)];
        const bool divides = scale.kind == OpKind::Div && near(scalar(scale.inputs[1]), std::sqrt(2.0));
        const bool multiplies = scale.kind == OpKind::Mul && near(scalar(scale.inputs[1]), 1 / std::sqrt(2.0));
        if (!divides && !multiplies) return std::nullopt;
        const ValueId x = scale.inputs[0];
        const Node* add = soleReader(erf.outputs[0], OpKind::Add);
        if (!add || !near(scalar(otherOperand(*add, erf.outputs[0])), 1.0)) return std::nullopt;
        const ValueId onePlus = add->outputs[0];
        const Node* mul = soleReader(onePlus, OpKind::Mul);
        if (!mul) return std::nullopt;
        const ValueId other = otherOperand(*mul, onePlus);
        const Node* last = nullptr;
        if (other == x) {
            last = scaledBy(mul->outputs[0], 0.5);                        // (x * a) * 0.5
        } else if (near(scalar(other), 0.5)) {
            last = timesValue(mul->outputs[0], x);                        // (a * 0.5) * x
        } else if (const Node* half = producer(other, OpKind::Mul); half && half->inputs[0] == x &&
                                                                     near(scalar(half->inputs[1]), 0.5)) {
            last = mul;                                                   // (x * 0.5) * a
        }
        if (!last) return std::nullopt;
        return finish(OpKind::Gelu, x, last->outputs[0], last->name);
    }

    /// From a HardSigmoid(x) with alpha 1/6 and beta 0.5 read by Mul(x, .).
    std::optional<PatternMatch> hardSwishFromSigmoid(const Node& sigmoid) const {
        const ValueId x = sigmoid.inputs[0];
        if (!near(static_cast<float>(sigmoid.floatAttr("alpha", 0.2)), 1.0 / 6) ||
            !near(static_cast<float>(sigmoid.floatAttr("beta", 0.5)), 0.5)) {
            return std::nullopt;
        }
        const Node* mul = timesValue(sigmoid.outputs[0], x);
        if (!mul) return std::nullopt;
        return finish(OpKind::HardSwish, x, mul->outputs[0], mul->name);
    }

    /// The bound of a Clip: its input (opset 11 on) or attribute.
    std::optional<float> clipBound(const Node& clip, size_t index, const char* attribute) const {
        if (clip.attributes.contains(attribute)) return static_cast<float>(clip.floatAttr(attribute, 0));
        if (index < clip.inputs.size() && clip.inputs[index] != kNoValue) return scalar(clip.inputs[index]);
        return std::nullopt;
    }

    /// From a Clip(x + 3, 0, 6): times x and divided by 6, in either order.
    std::optional<PatternMatch> hardSwishFromClip(const Node& clip) const {
        if (clipBound(clip, 1, "min") != 0.0f) return std::nullopt;
        if (!near(clipBound(clip, 2, "max"), 6.0)) return std::nullopt;
        const Node* add = producer(clip.inputs[0], OpKind::Add);
        if (!add) return std::nullopt;
        const bool threeSecond = near(scalar(add->inputs[1]), 3.0);
        if (!threeSecond && !near(scalar(add->inputs[0]), 3.0)) return std::nullopt;
        const ValueId x = threeSecond ? add->inputs[0] : add->inputs[1];
        if (graph().value(x).dtype != DType::Fp32) return std::nullopt;
        std::optional<ValueId> result;
        if (const Node* mul = timesValue(clip.outputs[0], x)) {
            result = scaledDown(mul->outputs[0], 6.0);
        } else if (const std::optional<ValueId> sixth = scaledDown(clip.outputs[0], 6.0)) {
            if (const Node* mul = timesValue(*sixth, x)) result = mul->outputs[0];
        }
        if (!result) return std::nullopt;
        const Node& last = graph().nodes[static_cast<size_t>(graph().value(*result).producer)];
        return finish(OpKind::HardSwish, x, *result, last.name);
    }
};

}  // namespace

void recognizeActivations(Graph& graph) {
    const ActivationMatcher matcher(graph);
    std::vector<PatternMatch> matches;
    for (const Node& node : graph.nodes) {
        std::optional<PatternMatch> match;
        if (node.kind == OpKind::Erf) match = matcher.gelu(node);
        if (node.kind == OpKind::HardSigmoid) match = matcher.hardSwishFromSigmoid(node);
        if (node.kind == OpKind::Clip) match = matcher.hardSwishFromClip(node);
        if (match) matches.push_back(std::move(*match));
    }
    replaceMatches(graph, std::move(matches));
}

}  // namespace npusim::compiler
