// Reading the graph IR's text form (printGraph) back into a graph, for IR tests and tools.
#pragma once

#include <string_view>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Parses printGraph's text. Constants are `%c = constant dense<int64[2]: [1, 2]>`, or
/// `%w = constant fp32[64,32]` (data not given: zeros). Node result types come from the op
/// table, which also checks every node, so the graph is verified as it is read. Throws
/// InputError "line L, column C: ..." for malformed text, naming the op for an invalid node.
Graph parseGraph(std::string_view text);

}  // namespace npusim::compiler
