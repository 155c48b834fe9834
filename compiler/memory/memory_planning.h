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

/// On-chip footprint of one GEMM schedule (bytes per slot; pitches in elements).
struct GemmFootprint {
    int64_t aPitch = 0, bPitch = 0;
    uint64_t aSlot = 0, bSlot = 0, biasSlot = 0, accumulatorSlot = 0;
    int slots = 1;
    uint64_t sramBytes = 0, accumulatorBytes = 0;  ///< totals, after bank alignment
};

GemmFootprint gemmFootprint(const GemmProblem& problem, const GemmSchedule& schedule,
                            const ArchConfig& config);
/// Bytes of SRAM a vector schedule needs: each buffer, bank-aligned, once per slot.
uint64_t vectorFootprint(const VectorProblem& problem, const VectorSchedule& schedule,
                         const ArchConfig& config);

/// SRAM a value takes when kept resident: its bytes, rounded up to the SRAM's bank period.
uint64_t residentFootprint(const Value& value, const MemoryConfig& sram);

/// The values an op's commands store or load: its kernels' views, or its GEMM's operands
/// (a gathered operand's sources in its place), bias and result.
std::vector<ValueId> accessedValues(const TileOp& op);

/// Lays out DRAM and each op's on-chip buffers, and keeps intermediates resident in SRAM
/// where they fit beside the working sets of the ops they live across (the rest spill).
MemoryPlan planMemory(const Graph& graph, const TileProgram& program, const ArchConfig& config);

}  // namespace npusim::compiler
