// On-chip footprints of tile schedules and the values a tile op touches: what schedule search,
// fusion and memory planning all ask of a schedule before they place it.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/arch_config.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// A value's bytes in DRAM (elements times the element size).
uint64_t valueBytes(const Value& value);

/// On-chip footprint of one GEMM schedule (bytes per slot; pitches in elements).
struct GemmFootprint {
    int64_t aPitch = 0, bPitch = 0;
    uint64_t aSlot = 0, bSlot = 0, biasSlot = 0, accumulatorSlot = 0;
    /// Per epilogue step with an operand (epilogueOperandSteps), in order: its block's part as
    /// fp32 (a narrower operand is loaded into the slot's tail and dequantised over it).
    std::vector<uint64_t> operandSlots;
    int slots = 1;
    uint64_t sramBytes = 0, accumulatorBytes = 0;  ///< totals, after bank alignment
};

GemmFootprint gemmFootprint(const GemmProblem& problem, const GemmSchedule& schedule,
                            const ArchConfig& config);
/// Bytes of one slot of each buffer of a vector problem, for its largest block.
std::vector<uint64_t> vectorBufferBytes(const VectorProblem& problem, const VectorSchedule& schedule);
/// Bytes of SRAM a vector schedule needs: each buffer, bank-aligned, once per slot.
uint64_t vectorFootprint(const VectorProblem& problem, const VectorSchedule& schedule,
                         const ArchConfig& config);

/// SRAM a value takes when kept resident: its bytes, rounded up to the SRAM's bank period.
uint64_t residentFootprint(const Value& value, const MemoryConfig& sram);

/// The values an op's commands store or load: its kernels' views, or its GEMM's operands
/// (a gathered operand's sources in its place), bias and result.
std::vector<ValueId> accessedValues(const TileOp& op);

}  // namespace npusim::compiler
