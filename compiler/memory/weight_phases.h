// Weight streaming: when DRAM cannot hold every weight beside the activations, the ops are cut
// into phases, each a job of its own preceded by the upload of the weights it reads first, so
// that the weights live in DRAM at any time fit a budget.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// A weight's bytes and the op positions of its first and last reader.
struct WeightUse {
    ValueId value = kNoValue;
    uint64_t bytes = 0;
    int first = 0, last = 0;
};

/// The op positions where phases start (the first is 0), cutting [0, opCount) greedily: a phase
/// grows while the weights it holds (those read in it, and those read before and after it)
/// add up to at most `budget` bytes. An op whose own weights exceed the budget still gets a
/// phase: the caller checks the plan that results.
std::vector<int> cutWeightPhases(std::span<const WeightUse> weights, int opCount, uint64_t budget);

/// The index of the phase that holds op position `position` (`phaseStarts` as cutWeightPhases gives).
size_t phaseOf(std::span<const int> phaseStarts, int position);

}  // namespace npusim::compiler
