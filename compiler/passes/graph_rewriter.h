// Rewriting a graph node by node: a pass walks the nodes in order and keeps each one or
// replaces it with new nodes, whose output types the op table derives as they are added.
// Values are never renumbered, so a replacement that ends by writing the old node's outputs
// leaves every consumer as it was.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// A 1-D int64 tensor of `values` (a Reshape's shape, a Slice's starts...).
Tensor int64Tensor(const std::vector<int64_t>& values);

class GraphRewriter {
public:
    explicit GraphRewriter(Graph& graph) : graph_(graph) {}

    /// Adds a node. Each output is a new value named `<name>.<i>` (made unique), or the existing value given
    /// in `outputs` (to take over a replaced node's results). Returns the output ids. A node
    /// with new outputs whose inputs are all constants is folded: its outputs become constants
    /// and no node is added.
    std::vector<ValueId> add(OpKind kind, const std::string& name, std::vector<ValueId> inputs,
                             std::map<std::string, Attribute> attributes = {}, std::vector<ValueId> outputs = {},
                             size_t outputCount = 1);
    /// A new constant value, named `name` (made unique).
    ValueId constant(const std::string& name, Tensor tensor);

    /// Visits every node; `replace` returns false to keep the node as it is, or adds its
    /// replacement through add() (or nothing, when its results are produced elsewhere) and
    /// returns true. The graph's node list is rebuilt; values no node produces any more stay in
    /// the value table, dead.
    void run(const std::function<bool(const Node&)>& replace);

    Graph& graph() { return graph_; }

private:
    /// `name`, or `name_N` for the smallest N that no value is named yet: value names stay
    /// unique, so the IR text reads back unambiguously.
    std::string uniqueName(const std::string& name);

    Graph& graph_;
    std::vector<Node> nodes_;
    std::set<std::string> names_;  ///< every value's name, filled on first use
};

}  // namespace npusim::compiler
