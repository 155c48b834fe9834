// Whether a model may run padded along a dim: every element of the padded positions must stay
// apart from the real ones, so that the real outputs come out as if the model ran at its actual
// size. Shape buckets pad a symbolic input dim; a data-dependent size pads an op's outputs to
// their bound (compiler/graph/data_dependent.h).
#pragma once

#include <map>
#include <set>
#include <string>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// The padded dims of each value, from `seeds` (values and their padded dims) through the ops
/// that keep positions apart; throws InputError naming the first op that would mix padded
/// positions into real ones, saying "<how> would mix <what> into real ones<consequence>".
std::map<ValueId, std::set<int64_t>> followPadding(const Graph& graph, std::map<ValueId, std::set<int64_t>> seeds,
                                                   const std::string& what, const std::string& consequence);

/// Follows the dims that carry `symbol` (from the graph inputs declaring it) through the ops;
/// throws InputError naming the first op that would mix padded positions into real ones (a
/// reduction, a MatMul's inner dim, a reshape...) or an output whose symbolic dims differ.
void checkPaddable(const Graph& graph, const std::string& symbol);

}  // namespace npusim::compiler
