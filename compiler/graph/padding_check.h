// Whether a model may run padded along a symbolic dim (shape buckets): every element of the
// padded positions must stay apart from the real ones, so that the real outputs come out as
// if the model ran at its actual size.
#pragma once

#include <string>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Follows the dims that carry `symbol` (from the graph inputs declaring it) through the ops;
/// throws InputError naming the first op that would mix padded positions into real ones (a
/// reduction, a MatMul's inner dim, a reshape...) or an output whose symbolic dims differ.
void checkPaddable(const Graph& graph, const std::string& symbol);

}  // namespace npusim::compiler
