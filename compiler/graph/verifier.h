// Graph IR verifier: structure (every value defined once, before use; nodes in topological
// order; inputs/outputs valid) and each op's own rules via its type function.
#pragma once

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Throws InputError with a located diagnostic naming the op or value at fault.
void verifyGraph(const Graph& graph);
/// The same without copying the graph: the type functions run on it, and it is left as it was.
void verifyGraph(Graph& graph);

}  // namespace npusim::compiler
