// Memory planning: lays out DRAM (weights image, inputs, outputs, spilled intermediates), each
// op's on-chip buffer slots, bank-aligned, with row pitches padded where a transposing DMA
// would otherwise hit one bank with every element, and the intermediates resident in SRAM.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/arch_config.h"
#include "compiler/memory/memory_ir.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// Lays out DRAM and each op's on-chip buffers, and keeps intermediates resident in SRAM
/// where they fit beside the working sets of the ops they live across (the rest spill).
MemoryPlan planMemory(const Graph& graph, const TileProgram& program, const ArchConfig& config);

}  // namespace npusim::compiler
