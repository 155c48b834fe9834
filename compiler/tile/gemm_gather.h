// Gathered GEMM operands (GemmOperand::gather): the transfers that assemble one B block on chip
// from the operand's pieces. Codegen emits them; the cost model prices the same list.
#pragma once

#include <cstdint>
#include <functional>

#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// `rows` block rows, `rowStep` apart from `blockRow` on, each with `length` elements from
/// column `blockCol` of the block: read from the piece's source (element `sourceOffset`, rows
/// `rowInStride` apart, elements `runInStride` apart) or, for a fill piece, written with its
/// value.
struct GatherTransfer {
    const GatherPiece* piece = nullptr;
    int64_t blockRow = 0, blockCol = 0, rows = 0, rowStep = 1, length = 0;
    int64_t sourceOffset = 0, rowInStride = 0, runInStride = 1;
};

/// Visits the transfers of B's block (block.k0.., block.n0..) in piece order.
void forEachGatherTransfer(const GemmProblem& problem, const GemmBlock& block,
                           const std::function<void(const GatherTransfer&)>& visit);

}  // namespace npusim::compiler
