// A KV-cache decoder's outputs as a step needs them: a present that is its past input
// concatenated with the new tokens' entries becomes those entries alone, so a step stores only
// what it adds to the cache and the runtime appends it in place; a prefill's logits are its last
// position's.
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

/// Makes the output `name` its last position along `axis` (a prefill's logits: only the last
/// token's choose the next one). The slice moves before the ops that compute each position on
/// its own (a MatMul's rows, a LayerNormalization over the last axis), so they run for the last
/// position alone. InputError when the graph has no such output or `axis` is its last dim.
void lastPositionOnly(Graph& graph, const std::string& name, size_t axis);

}  // namespace npusim::compiler
