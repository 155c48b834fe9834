// pack-constant-operands: a weight matrix is stored in DRAM in the layout its GEMM's blocks
// load, so each block is one run of DRAM instead of rows a matrix row apart (which, when the
// matrix row is a multiple of the channel interleave, all fall on the same channels).
#pragma once

#include "compiler/cost/cost_model.h"
#include "compiler/graph/graph.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// Stores each constant that only GEMM operands read, all loading it in blocks of the same
/// width, in bands of that width (GemmOperand::bandColumns), when that is narrower than its
/// matrices. A constant some other op reads (or a view shares, or the graph returns) keeps its
/// row-major layout, and the GEMMs loading it in narrower blocks are estimated again so.
/// Returns the number of constants packed.
int packConstantOperands(TileProgram& program, const Graph& graph, const CostModel& model);

}  // namespace npusim::compiler
