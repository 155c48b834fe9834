// Loop descriptors: a `loop` header, the body descriptors it repeats and the `step`
// descriptors that say how the body's tile ids and addresses advance per iteration
// (docs/ISA.md, "loop"). The command processor expands them; so do the tools that show what
// it dispatches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arch/isa.h"

namespace npusim::isa {

/// Descriptors one loop may span, header, body and steps together (the command processor's
/// loop buffer).
inline constexpr size_t kMaxLoopDescriptors = 256;
/// Loops nested inside one another, the outermost included.
inline constexpr int kMaxLoopDepth = 4;

/// Descriptors the loop headed by `header` spans: itself, its body and its steps.
size_t loopExtent(const Command& header);

/// Whether a step of `field` applies to commands of `opcode` (tile ids to every command,
/// addresses to the opcodes that have them).
bool stepApplies(StepField field, Opcode opcode);
/// Adds `amount` to the field a step of `field` names (wrapping); it must apply.
void applyStep(Command& command, StepField field, int64_t amount);

/// Why the loop `loop` (exactly its extent, header first) cannot run, or nullopt: a zero count
/// or body, a body holding `end` or a stray `step`, a nested loop running past its parent's
/// body or deeper than kMaxLoopDepth, steps that are not `step` descriptors, or an entry whose
/// target is not a command of the body or lacks the field.
std::optional<std::string> checkLoop(std::span<const Command> loop);

/// Generated command, the position in the loop of the body descriptor it comes from; returns
/// false to stop the expansion.
using LoopEmit = std::function<bool(const Command&, size_t)>;
/// Calls `emit` for every command a checked loop generates, in order. Returns false when emit
/// stopped it.
bool expandLoop(std::span<const Command> loop, const LoopEmit& emit);

/// The stream as the command processor dispatches it, every loop expanded. Throws InputError
/// naming the first loop that cannot run.
std::vector<Command> expandLoops(std::span<const Command> descriptors);

}  // namespace npusim::isa
