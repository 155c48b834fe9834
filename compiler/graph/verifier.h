// Graph IR verifier: structure (every value defined once, before use; nodes in topological
// order; inputs/outputs valid) and each op's own rules via its type function.
#pragma once

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Throws InputError with a located diagnostic naming the op or value at fault.
void verifyGraph(const Graph& graph);

}  // namespace npusim::compiler
