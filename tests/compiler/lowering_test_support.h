// Test helpers for lowering: a graph through tiling, memory planning and codegen, and the
// checks every generated stream must pass.
#pragma once

#include <vector>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "compiler/graph/graph.h"
#include "compiler/memory/memory_ir.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler::testing {

struct Lowered {
    TileProgram tiles;
    MemoryPlan memory;
    std::vector<isa::Command> commands;
};

/// Tiles (no fusion), plans memory and generates the commands of `graph`.
Lowered lower(const Graph& graph, const ArchConfig& config);

/// Every command passes the firmware's validation, semaphores balance, the stream ends.
void expectValidStream(const Lowered& lowered, const ArchConfig& config);

}  // namespace npusim::compiler::testing
