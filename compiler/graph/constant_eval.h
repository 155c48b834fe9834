// Compile-time evaluation of one node: the frontend folds shape computations (Shape -> Gather ->
// Concat -> Reshape) with it, and graph passes can fold constants with it.
#pragma once

#include <optional>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// The node's outputs when they are known at compile time: every present input is a constant,
/// or the op is Shape or Size, whose outputs depend on the (static) input shape only. nullopt
/// otherwise, and when an output is larger than 1 GiB. A data-dependent op's padded outputs come
/// cut to their actual size, smaller than the node records. Runs the op's reference semantics, so
/// it throws the op's located errors (a Gather index out of range, ...).
std::optional<std::vector<Tensor>> evaluateIfConstant(const Graph& graph, const Node& node);

}  // namespace npusim::compiler
