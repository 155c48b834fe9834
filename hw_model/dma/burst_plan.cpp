// Walking a DMA command's bursts: strided rows, linear runs, broadcast rows, indexed rows and
// transposing copies.
#include "hw_model/dma/burst_plan.h"

#include <algorithm>

namespace npusim::hw {

BurstPlan::BurstPlan(const isa::Command& command, const std::vector<uint64_t>& tableRows, uint64_t farBase, uint64_t burstBytes)
    : tableRows_(tableRows),
      planes_(std::max<uint64_t>(1, command.get(isa::Field::Planes))),
      rows_(command.get(isa::Field::Rows)),
      rowBytes_(command.get(isa::Field::RowBytes)),
      dramStride_(command.get(isa::Field::DramStride)),
      onchipStride_(command.get(isa::Field::OnchipStride)),
      burstBytes_(burstBytes),
      farBase_(farBase),
      dramAddr_(command.get(isa::Field::DramAddr)),
      dramPlaneStride_(command.get(isa::Field::DramPlaneStride)),
      onchipAddr_(command.get(isa::Field::OnchipAddr)),
      onchipPlaneStride_(command.get(isa::Field::OnchipPlaneStride)),
      elemBytes_(command.get(isa::Field::ElemBytes)),
      elemStride_(command.get(isa::Field::ElemStride)),
      transpose_(command.get(isa::Field::Transpose) != 0),
      broadcast_(false) {
    if (elemStride_ != 0) return;
    // Rows back to back in DRAM form one run: bursts then span rows and are full size. A load
    // repeating one row (dram_stride 0) reads it once and writes it to every on-chip row. An
    // indexed load's rows are runs of their own, wherever its indices put them.
    const bool indexed = !tableRows.empty();
    const bool linear = !transpose_ && !indexed && dramStride_ == rowBytes_;
    broadcast_ = command.opcode == isa::Opcode::DmaLoad && !transpose_ && !indexed && dramStride_ == 0 && rows_ > 1;
    runs_ = linear || broadcast_ ? 1 : rows_;
    runBytes_ = linear ? rows_ * rowBytes_ : rowBytes_;
}

bool BurstPlan::next(Burst& burst) {
    return elemStride_ != 0 ? nextStrided(burst) : nextInRun(burst);
}

bool BurstPlan::nextPosition(uint64_t runs, uint64_t runLength) {
    while (plane_ < planes_) {
        if (run_ == runs) {
            ++plane_;
            run_ = 0;
        } else if (done_ >= runLength) {
            ++run_;
            done_ = 0;
        } else {
            return true;
        }
        // A run starts a row: one run covers every row, or each row is a run of its own.
        row_ = run_;
        column_ = 0;
    }
    return false;
}

bool BurstPlan::nextStrided(Burst& burst) {
    const uint64_t e = elemBytes_, cols = rowBytes_ / e;
    if (!nextPosition(rows_, cols)) return false;
    const uint64_t row = run_, c = done_;
    const uint64_t first = farAddress(plane_) + row * dramStride_ + c * elemStride_;
    const uint64_t boundary = (first & ~(burstBytes_ - 1)) + burstBytes_;
    const uint64_t fit = boundary >= first + e ? 1 + (boundary - first - e) / elemStride_ : 1;
    const uint64_t count = std::min(fit, cols - c);
    burst = Burst{};
    burst.dramAddress = first;
    burst.bufferOffset = (plane_ * rows_ + row) * rowBytes_ + c * e;
    burst.bytes = count * e;
    burst.elements = count;
    burst.elementStride = elemStride_;
    // The elements land side by side on chip.
    burst.pieces[0] = {onchipAddress(plane_) + row * onchipStride_ + c * e, 1, count * e, count * e, burst.bufferOffset};
    burst.pieceCount = 1;
    done_ += count;
    return true;
}

bool BurstPlan::nextInRun(Burst& burst) {
    const uint64_t elem = transpose_ ? elemBytes_ : 1;
    if (!nextPosition(runs_, runBytes_)) return false;
    const uint64_t runStart = farAddress(plane_) + (tableRows_.empty() ? run_ : tableRows_[run_]) * dramStride_;
    const uint64_t planeBuffer = plane_ * rows_ * rowBytes_;
    const uint64_t onchip = onchipAddress(plane_);
    // Bursts never cross a burst-aligned boundary; a transposing DMA keeps whole elements.
    uint64_t bytes = std::min(runBytes_ - done_, burstBytes_ - ((runStart + done_) & (burstBytes_ - 1)));
    if (transpose_) bytes = std::max(elem, bytes / elem * elem);
    burst = Burst{};
    burst.dramAddress = runStart + done_;
    burst.bufferOffset = planeBuffer + run_ * runBytes_ + done_;
    burst.bytes = bytes;
    if (transpose_) {
        // Element (r, c) lands at onchip + c*stride + r*elem.
        burst.pieces[0] = {onchip + (done_ / elem) * onchipStride_ + run_ * elem, bytes / elem, elem, onchipStride_,
                           burst.bufferOffset};
        burst.pieceCount = 1;
    } else {
        // Split the burst's bytes [offset, offset + bytes) of the plane's row-major block
        // into a row tail, whole rows and a row head.
        uint64_t offset = run_ * runBytes_ + done_, left = bytes;
        while (left > 0) {
            OnchipPiece& piece = burst.pieces[static_cast<size_t>(burst.pieceCount++)];
            piece.address = onchip + row_ * onchipStride_ + column_;
            piece.bufferOffset = planeBuffer + offset;
            piece.stride = onchipStride_;
            if (column_ == 0 && left >= rowBytes_) {
                piece.rows = left / rowBytes_;
                piece.rowBytes = rowBytes_;
                row_ += piece.rows;
            } else {
                piece.rows = 1;
                piece.rowBytes = std::min(left, rowBytes_ - column_);
                column_ += piece.rowBytes;
                if (column_ == rowBytes_) {
                    ++row_;
                    column_ = 0;
                }
            }
            offset += piece.rows * piece.rowBytes;
            left -= piece.rows * piece.rowBytes;
        }
    }
    if (broadcast_) {
        burst.copies = rows_;
        burst.copyStride = onchipStride_;
    }
    done_ += bytes;
    return true;
}

}  // namespace npusim::hw
