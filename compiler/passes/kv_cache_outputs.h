// A KV-cache decoder's present outputs as appends: a present that is its past input
// concatenated with the new tokens' entries becomes those entries alone, so a step stores only
// what it adds to the cache and the runtime appends it in place.
#pragma once

#include <span>
#include <string>
#include <utility>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// For each (past input, present output) pair: the present, a Concat of the past and new
/// entries along the pair's axis, is replaced as a graph output by the new entries, under the
/// present's name. InputError naming the present when it is not such a Concat.
void presentsAsAppends(Graph& graph, std::span<const std::pair<std::string, std::string>> pairs);

}  // namespace npusim::compiler
