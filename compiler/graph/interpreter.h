// The reference interpreter: the golden model every NPU result is checked against.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Runs the graph on host tensors. `inputs` is keyed by graph input name; every graph input
/// must be present with the declared dtype and shape (InputError otherwise). Returns the
/// graph outputs in order, those padded by a data-dependent size cut to it.
std::vector<Tensor> interpretGraph(const Graph& graph, const std::map<std::string, Tensor>& inputs);

}  // namespace npusim::compiler
