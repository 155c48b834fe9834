// What an op's commands must at least do, whatever their schedule: the bytes of each value
// they reach, and the fewest cycles each unit needs (the shape-aware roofline's terms).
#pragma once

#include <cstdint>
#include <map>

#include "arch/arch_config.h"
#include "arch/artifact.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// The bytes of each value an op's commands load (`read`) or store (`written`). A vector
/// kernel's view reaches only the elements its index space walks (a time step's slice of a
/// sequence): its distinct views add up, to at most the tensor. Every other access takes its
/// whole tensor.
struct ReachedBytes {
    std::map<ValueId, uint64_t> read, written;
    /// Read and written together, per value, at most the value.
    std::map<ValueId, uint64_t> either(const Graph& graph) const;
};
ReachedBytes reachedBytes(const Graph& graph, const TileOp& op);

/// The fewest cycles each unit needs for `op` on `config`: its GEMM at the array's
/// quantisation (gemmArrayCycles), its vector steps and GEMM epilogue at the vector unit's
/// lanes, and what it reaches through each DMA engine at the engine's peak (a burst per
/// channel and cycle). A CPU segment's op has none.
UnitBounds unitBounds(const TileOp& op, const ReachedBytes& reached, const ArchConfig& config);

}  // namespace npusim::compiler
