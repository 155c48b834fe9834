// Kernel fusion on the tile IR: a vector kernel whose only reader is the single vector kernel of
// another op is merged into that reader when both walk the same index space the same way. The
// intermediate then never leaves the chip: its store, its DRAM round trip and its reload go.
#pragma once

#include "arch/arch_config.h"
#include "compiler/cost/cost_model.h"
#include "compiler/graph/graph.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// Fuses producer kernels into their readers, in program order (so chains fuse whole), and
/// reschedules each merged kernel; a merge whose kernel would not fit on chip is not made.
/// Returns the number of merges.
int fuseVectorKernels(TileProgram& program, const Graph& graph, const ArchConfig& config, const CostModel& model);

/// Fuses an elementwise op that alone reads a GEMM's result, element for element in the same
/// order, through a chain of one-operand steps (an activation, clip, scale) into that GEMM:
/// its steps run on each result block in the accumulator and the GEMM stores the op's result.
/// A bias the op adds first (one value per result column, as a Linear layer's after a
/// MatMul) becomes the GEMM's own, when its schedule still fits on chip with the bias blocks.
/// Returns the number of fusions.
int fuseGemmEpilogues(TileProgram& program, const Graph& graph, const ArchConfig& config, const CostModel& model);

/// Folds a copy (a Transpose, a Slice: one load, one store, no math) read only by a GEMM's
/// operand into that GEMM when the operand's elements lie in the copy's input at one row
/// stride, one column or row step of one element, and one offset per batch: the GEMM reads
/// them in place (GemmOperand::rowStride, transposed where the rows step by one) and the copy
/// goes, where the cost model expects the GEMM's new loads to cost less than the copy. Returns
/// the number of folds.
int fuseStridedOperands(TileProgram& program, const Graph& graph, const ArchConfig& config, const CostModel& model);

/// Fuses each npusim.Im2Col read only by a GEMM's B operand into that GEMM: the GEMM gathers
/// its B blocks straight from the Im2Col's input (GemmOperand::gather), so the patch matrix
/// never exists in DRAM; the GEMM's schedule is chosen again for the gathered loads. Returns
/// the number of fusions.
int fuseGatheredOperands(TileProgram& program, const Graph& graph, const ArchConfig& config, const CostModel& model);

}  // namespace npusim::compiler
