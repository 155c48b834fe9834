// The reference interpreter: the golden model every NPU result is checked against.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Runs the graph on host tensors. `inputs` is keyed by graph input name; every graph input
/// must be present with the declared dtype and shape (InputError otherwise). Returns the
/// graph outputs in order, those padded by a data-dependent size cut to it.
std::vector<Tensor> interpretGraph(const Graph& graph, const std::map<std::string, Tensor>& inputs);

/// Called after each node with the tensors it computed, in the order of node.outputs.
using NodeVisitor = std::function<void(const Node& node, std::span<const Tensor> outputs)>;

/// interpretGraph, showing each node's results to `visit` as they are computed.
std::vector<Tensor> interpretGraph(const Graph& graph, const std::map<std::string, Tensor>& inputs,
                                   const NodeVisitor& visit);

}  // namespace npusim::compiler
