// Gathered GEMM operands (GemmOperand::gather): the transfers that assemble one B block on chip
// from the operand's pieces. Codegen emits them; the cost model prices the same list.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

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

/// A fill transfer as it lands in its slot: block rows and columns, and the value's bits.
struct GatherFill {
    int64_t blockRow = 0, blockCol = 0, rows = 0, rowStep = 1, length = 0;
    uint32_t value = 0;
    bool operator==(const GatherFill&) const = default;
};

/// A fill transfer's place and value.
GatherFill gatherFill(const GatherTransfer& fill);

/// The fills each B slot holds. A block's transfers write each of its elements once, so a block
/// whose fills are exactly those of the block its slot last held finds them in place (its copies
/// write only the other elements) and writes none. Codegen and the cost model both use it.
class SlotFills {
public:
    explicit SlotFills(size_t slots) : held_(slots) {}
    /// Whether `fills` must be written into `slot`; they are the slot's from then on.
    bool needed(size_t slot, std::vector<GatherFill> fills);

private:
    std::vector<std::optional<std::vector<GatherFill>>> held_;
};

/// The gathered pieces' period along B's columns: the widest step of their lines within a row
/// (an image row of a convolution's positions), 0 when B is not gathered or has no lines. Away
/// from the operand's borders, blocks at the same column phase in it gather alike.
int64_t gatherPeriod(const GemmProblem& problem);

/// The gathered pieces' period along B's rows: the least common multiple of the steps, in
/// rows, of the dims that step over rows (a convolution's kernel taps per input channel), 0
/// when B is not gathered. Reduction blocks of whole periods hold their fills in the same places.
int64_t gatherRowPeriod(const GemmProblem& problem);

/// Column block sizes, not among `sizes`, aligned to the gather period so that every block's
/// fills fall in the same places: each of `sizes` rounded down to whole periods, and to whole
/// periods that are whole multiples of `unit` too. Empty when B is not gathered.
std::vector<int64_t> gatherAlignedBlocks(const GemmProblem& problem, const std::vector<int64_t>& sizes, int64_t unit);

}  // namespace npusim::compiler
