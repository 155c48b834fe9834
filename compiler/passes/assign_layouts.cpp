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
#include <optional>
#include <set>

#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

/// Ops that treat the batch and channel axes alike (each [spatial...] plane on its own).
bool isPlanewise(const Node& node) {
    return node.kind == OpKind::AveragePool || node.kind == OpKind::GlobalAveragePool ||
           node.kind == OpKind::GlobalMaxPool || node.kind == OpKind::MaxPool;
}

/// A Reformat's permutation (output dim d is input dim perm[d]); no perm reverses the dims.
std::vector<int64_t> permOf(const Graph& graph, const Node& reformat) {
    std::vector<int64_t> reversed(graph.value(reformat.inputs[0]).shape.size());
    for (size_t d = 0; d < reversed.size(); ++d) reversed[d] = static_cast<int64_t>(reversed.size() - 1 - d);
    return ops::intListAttr(reformat, "perm", reversed);
}

/// A permutation that swaps the batch and channel axes only.
bool swapsBatchAndChannels(const std::vector<int64_t>& perm) {
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
        chooseMovable();
        if (movable_.empty()) return false;
        GraphRewriter rewriter(graph_);
        rewriter.run([&](const Node& node) {
            const std::optional<Absorption> absorption = absorb(node);
            if (!absorption) return false;
            if (absorption->intoIm2Col) {
                rewriter.add(node.kind, node.name, absorption->inputs, absorption->attributes, node.outputs);
            } else {
                // The op runs in the producer's layout; its result is reformatted instead.
                const ValueId result = rewriter.add(node.kind, node.name, absorption->inputs, node.attributes)[0];
                rewriter.add(OpKind::Reformat, node.name + ".reformat", {result}, absorption->reformat, node.outputs);
            }
            return true;
        });
        removeUnreadReformats();
        return true;
    }

private:
    /// How a node reads the tensors behind its Reformats instead.
    struct Absorption {
        std::vector<ValueId> inputs;
        std::map<std::string, Attribute> attributes;  ///< an Im2Col's, with channels_first
        std::map<std::string, Attribute> reformat;    ///< the Reformat to put after a sunk op
        bool intoIm2Col = false;
    };

    /// The movable Reformat producing `value`, or nullptr.
    const Node* reformatOf(ValueId value) const {
        const auto it = movable_.find(value);
        return it == movable_.end() ? nullptr : &it->second;
    }

    bool isScalar(ValueId value) const {
        return value == kNoValue || elementCount(graph_.value(value).shape) == 1;
    }

    /// How `node` would read past its Reformats, or nullopt when it cannot.
    std::optional<Absorption> absorb(const Node& node) const {
        if (node.inputs.empty() || node.inputs[0] == kNoValue) return std::nullopt;
        const Node* reformat = reformatOf(node.inputs[0]);
        if (!reformat) return std::nullopt;
        const std::vector<int64_t> perm = permOf(graph_, *reformat);
        Absorption a{node.inputs, node.attributes, reformat->attributes, false};
        a.inputs[0] = reformat->inputs[0];
        if (node.kind == OpKind::Im2Col) {
            if (!swapsBatchAndChannels(perm) || node.intAttr("channels_first", 0) != 0) return std::nullopt;
            a.attributes["channels_first"] = int64_t{1};
            a.intoIm2Col = true;
            return a;
        }
        bool agnostic = false;
        if (hasTrait(node.kind, kLayoutFree)) {
            // Every other operand a scalar, or reformatted alike (then read past as well).
            agnostic = true;
            for (size_t i = 1; i < node.inputs.size() && agnostic; ++i) {
                if (isScalar(node.inputs[i])) continue;
                const Node* other = reformatOf(node.inputs[i]);
                agnostic = other && permOf(graph_, *other) == perm &&
                           graph_.value(other->inputs[0]).shape == graph_.value(reformat->inputs[0]).shape;
                if (agnostic) a.inputs[i] = other->inputs[0];
            }
        } else {
            agnostic = isPlanewise(node) && swapsBatchAndChannels(perm);
        }
        // The result keeps the input's rank (a scalar of higher rank would change it).
        const bool sameRank = node.outputs.size() == 1 && graph_.value(node.outputs[0]).shape.size() == perm.size();
        if (!agnostic || !sameRank) return std::nullopt;
        return a;
    }

    /// The Reformats that move this sweep: every reader can absorb them (moving one that some
    /// reader still needs would only add a second Reformat), and they are no graph output.
    void chooseMovable() {
        movable_.clear();
        std::map<ValueId, std::vector<const Node*>> readers;
        for (const Node& node : graph_.nodes) {
            if (node.kind == OpKind::Reformat) movable_.emplace(node.outputs[0], node);
            for (ValueId id : node.inputs) {
                if (id != kNoValue) readers[id].push_back(&node);
            }
        }
        for (ValueId id : graph_.outputs) movable_.erase(id);
        // Dropping one can stop a binary reader absorbing its other operand: repeat until stable.
        for (bool dropped = true; dropped;) {
            dropped = false;
            for (auto it = movable_.begin(); it != movable_.end();) {
                const std::vector<const Node*>& users = readers[it->first];
                const bool all = !users.empty() && std::all_of(users.begin(), users.end(), [&](const Node* n) {
                    return absorb(*n).has_value();
                });
                if (all) {
                    ++it;
                } else {
                    it = movable_.erase(it);
                    dropped = true;
                }
            }
        }
    }

    void removeUnreadReformats() {
        std::set<ValueId> read(graph_.outputs.begin(), graph_.outputs.end());
        for (const Node& node : graph_.nodes) read.insert(node.inputs.begin(), node.inputs.end());
        GraphRewriter rewriter(graph_);
        rewriter.run([&](const Node& node) { return node.kind == OpKind::Reformat && !read.contains(node.outputs[0]); });
    }

    Graph& graph_;
    std::map<ValueId, Node> movable_;  ///< by result
};

}  // namespace

void assignLayouts(Graph& graph) {
    LayoutAssigner assigner(graph);
    while (assigner.sweep()) {
    }
}

}  // namespace npusim::compiler
