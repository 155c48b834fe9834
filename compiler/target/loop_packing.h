// Folding a command stream's periodic runs into loop descriptors, so that command bytes grow
// with the distinct tile shapes of a program rather than with its tile count.
#pragma once

#include <span>
#include <vector>

#include "arch/isa.h"

namespace npusim::compiler {

/// The stream with every run that repeats with only tile ids and addresses changing by a
/// constant per repetition folded into a loop (nested up to isa::kMaxLoopDepth, each within
/// isa::kMaxLoopDescriptors); isa::expandLoops of the result is `commands` again.
std::vector<isa::Command> packLoops(std::span<const isa::Command> commands);

}  // namespace npusim::compiler
