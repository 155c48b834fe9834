// assign-layouts: a convolution's GEMM writes its result channels first ([C, N, spatial...]),
// and convolution-to-gemm makes the layout its readers expect explicit with an
// npusim.Reformat. This pass keeps tensors in the layout they are written in for as long as
// their readers do not care: a Reformat moves below the elementwise ops and pools that read
// it (they compute the same in either layout), binary ops whose operands were both reformatted
// alike, and into the Im2Col of a next convolution, which reads channels first directly. What
// remains is a Reformat in front of a reader that needs the declared layout (a Flatten and
// Gemm, a Reshape, a graph output): explicit, and reported as a reformat finding.
#include <algorithm>
#include <map>
#include <set>

#include "compiler/graph/op_table.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

/// Elementwise ops of one tensor operand (any further operands scalars).
bool isElementwiseUnary(OpKind kind) {
    switch (kind) {
        case OpKind::Relu: case OpKind::Sigmoid: case OpKind::Tanh: case OpKind::Exp: case OpKind::Log:
        case OpKind::Neg: case OpKind::Abs: case OpKind::Sqrt: case OpKind::Reciprocal: case OpKind::Erf:
        case OpKind::Elu: case OpKind::Selu: case OpKind::Softplus: case OpKind::ThresholdedRelu:
        case OpKind::LeakyRelu: case OpKind::HardSigmoid: case OpKind::HardSwish: case OpKind::Identity:
        case OpKind::Cast: case OpKind::Clip: return true;
        default: return false;
    }
}

bool isElementwiseBinary(OpKind kind) {
    switch (kind) {
        case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Max:
        case OpKind::Min: return true;
        default: return false;
    }
}

/// Ops that treat the batch and channel axes alike (each [spatial...] plane on its own).
bool isPlanewise(const Node& node) {
    const bool pool = node.kind == OpKind::AveragePool || node.kind == OpKind::GlobalAveragePool ||
                      node.kind == OpKind::GlobalMaxPool || node.kind == OpKind::MaxPool;
    return pool && (node.outputs.size() == 1 || node.outputs[1] == kNoValue);
}

const std::vector<int64_t>& permOf(const Node& reformat) {
    return std::get<std::vector<int64_t>>(reformat.attributes.at("perm"));
}

/// A Reformat that swaps the batch and channel axes only.
bool swapsBatchAndChannels(const Node& reformat) {
    const std::vector<int64_t>& perm = permOf(reformat);
    if (perm.size() < 3 || perm[0] != 1 || perm[1] != 0) return false;
    for (size_t d = 2; d < perm.size(); ++d) {
        if (perm[d] != static_cast<int64_t>(d)) return false;
    }
    return true;
}

class LayoutAssigner {
public:
    explicit LayoutAssigner(Graph& graph) : graph_(graph) {}

    /// One sweep over the graph; true when it moved a Reformat.
    bool sweep() {
        reformats_.clear();
        for (const Node& node : graph_.nodes) {
            if (node.kind == OpKind::Reformat) reformats_.emplace(node.outputs[0], node);
        }
        bool changed = false;
        GraphRewriter rewriter(graph_);
        rewriter.run([&](const Node& node) {
            const bool done = absorb(rewriter, node);
            changed = changed || done;
            return done;
        });
        removeUnreadReformats();
        return changed;
    }

private:
    /// The Reformat producing `value` when the sweep began, or nullptr.
    const Node* reformatOf(ValueId value) const {
        const auto it = reformats_.find(value);
        return it == reformats_.end() ? nullptr : &it->second;
    }

    bool isScalar(ValueId value) const {
        return value == kNoValue || elementCount(graph_.value(value).shape) == 1;
    }

    /// Rewrites `node` to read the tensors its Reformats read; returns false to keep it.
    bool absorb(GraphRewriter& rewriter, const Node& node) {
        if (node.inputs.empty() || node.inputs[0] == kNoValue) return false;
        const Node* reformat = reformatOf(node.inputs[0]);
        if (!reformat) return false;
        std::vector<ValueId> inputs = node.inputs;
        inputs[0] = reformat->inputs[0];
        if (node.kind == OpKind::Im2Col) {
            if (!swapsBatchAndChannels(*reformat) || node.intAttr("channels_first", 0) != 0) return false;
            std::map<std::string, Attribute> attributes = node.attributes;
            attributes["channels_first"] = int64_t{1};
            rewriter.add(node.kind, node.name, inputs, attributes, node.outputs);
            return true;
        }
        bool agnostic = false;
        if (isElementwiseUnary(node.kind)) {
            agnostic = std::all_of(node.inputs.begin() + 1, node.inputs.end(), [&](ValueId v) { return isScalar(v); });
        } else if (isElementwiseBinary(node.kind)) {
            const Node* other = reformatOf(node.inputs[1]);
            const bool alike = other && permOf(*other) == permOf(*reformat) &&
                               graph_.value(other->inputs[0]).shape == graph_.value(reformat->inputs[0]).shape;
            if (alike) inputs[1] = other->inputs[0];
            agnostic = alike || isScalar(node.inputs[1]);
        } else {
            agnostic = isPlanewise(node) && swapsBatchAndChannels(*reformat);
        }
        if (!agnostic || node.outputs.size() != 1) return false;
        // The op runs in the producer's layout; its result is reformatted instead.
        const ValueId result = rewriter.add(node.kind, node.name, inputs, node.attributes)[0];
        rewriter.add(OpKind::Reformat, node.name + ".reformat", {result}, reformat->attributes, node.outputs);
        return true;
    }

    void removeUnreadReformats() {
        std::set<ValueId> read(graph_.outputs.begin(), graph_.outputs.end());
        for (const Node& node : graph_.nodes) read.insert(node.inputs.begin(), node.inputs.end());
        GraphRewriter rewriter(graph_);
        rewriter.run([&](const Node& node) { return node.kind == OpKind::Reformat && !read.contains(node.outputs[0]); });
    }

    Graph& graph_;
    std::map<ValueId, Node> reformats_;  ///< by result
};

}  // namespace

void assignLayouts(Graph& graph) {
    LayoutAssigner assigner(graph);
    while (assigner.sweep()) {
    }
}

}  // namespace npusim::compiler
