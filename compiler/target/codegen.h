// Target codegen: the tile program and memory plan become command streams, every command
// tagged with op_id, tile_id and kind, synchronised by the sync planner. The ops between two
// CPU ops (or weight phases' starts) form one NPU segment: a job, with a stream of its own.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "compiler/memory/memory_ir.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// An NPU segment (its command stream, ending with END) or a CPU segment (one CPU op).
struct CodeSegment {
    std::optional<uint32_t> hostOp;  ///< a CPU segment: the op's id
    /// The stream as codegen writes it; compileGraph then folds it into the descriptors the
    /// artifact holds (loops), keeping the count of what they dispatch in `dispatched`.
    std::vector<isa::Command> commands;
    std::vector<uint32_t> opIds;     ///< the ops of the segment, in program order
    size_t dispatched = 0;
    /// Streamed weights to copy into DRAM before the segment runs (MemoryPlan::weightPhases).
    std::vector<StreamedWeight> uploads;
};

/// The program's segments in execution order; NPU segments that issue no command are left out
/// (a program with no command at all is one NPU segment of just END).
std::vector<CodeSegment> generateSegments(const TileProgram& program, const MemoryPlan& plan,
                                          const ArchConfig& config);
/// The one command stream of a program without CPU ops.
std::vector<isa::Command> generateCommands(const TileProgram& program, const MemoryPlan& plan,
                                           const ArchConfig& config);

}  // namespace npusim::compiler
