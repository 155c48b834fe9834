// Target codegen: the tile program and memory plan become one command stream, every command
// tagged with op_id, tile_id and kind, synchronised by the sync planner.
#pragma once

#include <vector>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "compiler/memory/memory_ir.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

std::vector<isa::Command> generateCommands(const TileProgram& program, const MemoryPlan& plan,
                                           const ArchConfig& config);

}  // namespace npusim::compiler
