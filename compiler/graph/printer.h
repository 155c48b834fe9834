// Textual form of the graph IR (for --emit=graph, artifacts and tests).
#pragma once

#include <string>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Prints the graph, e.g.
///   graph @mlp(%x: fp32[1,64]) -> (%y: fp32[1,10]) {
///     %w0 = constant fp32[64,32]
///     %shape = constant dense<int64[2]: [1, 32]>
///     %h = Gemm(%x, %w0, %b0) {name = "fc1", transB = 1}
///     return %y
///   }
/// Constants of up to 8 elements print their data; larger ones their type only.
std::string printGraph(const Graph& graph);

}  // namespace npusim::compiler
