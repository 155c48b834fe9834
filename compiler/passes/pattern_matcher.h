// Pattern recognition over the graph: who reads and produces each value, and replacing the
// nodes of a recognised pattern by one op. Internal to compiler/passes.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {

class PatternMatcher {
public:
    explicit PatternMatcher(const Graph& graph);

    /// The one node reading `value` (once) if it is a `kind` and `value` is no graph output.
    const Node* soleReader(ValueId value, OpKind kind) const;
    /// Whether `value` is a graph output or read by a node outside `nodes`.
    bool escapes(ValueId value, const std::set<const Node*>& nodes) const;
    /// The node producing `value` if it is a `kind` read `uses` times in all, else nullptr.
    const Node* producer(ValueId value, OpKind kind, int uses = 1) const;
    /// The value of a one-element fp32 constant.
    std::optional<float> scalar(ValueId value) const;
    /// The nodes `to` depends on back to the values in `stop` (exclusive), walking producers.
    void collect(ValueId to, const std::set<ValueId>& stop, std::set<const Node*>& nodes) const;
    /// Whether every value `nodes` make, but `result`, is read only by them.
    bool selfContained(const std::set<const Node*>& nodes, ValueId result) const;

    const Graph& graph() const { return graph_; }

private:
    const Graph& graph_;
    std::map<ValueId, int> readers_;  ///< reads by nodes (an input read twice counts twice) and outputs
    std::map<ValueId, std::vector<const Node*>> readerNodes_;
    std::set<ValueId> outputs_;
};

/// A recognised pattern: the node replacing it (writing the pattern's result) and the nodes
/// it replaces.
struct PatternMatch {
    Node replacement;
    std::set<const Node*> nodes;
};

/// Replaces each match's nodes by its replacement, placed where its result was produced; a
/// match sharing nodes with an earlier one is dropped. `prepare` may add nodes or constants
/// the replacement reads, just before it is added.
void replaceMatches(Graph& graph, std::vector<PatternMatch> matches,
                    const std::function<void(GraphRewriter&, Node&)>& prepare = {});

}  // namespace npusim::compiler
