// forEachGatherTransfer: each piece cut to the block, one transfer per line of its column dims.
#include "compiler/tile/gemm_gather.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <span>
#include <stdexcept>

#include "arch/int_math.h"

namespace npusim::compiler {
namespace {

void pieceTransfers(const GatherPiece& piece, int64_t columns, const GemmBlock& block,
                    const std::function<void(const GatherTransfer&)>& visit) {
    const StridedCopy& c = piece.copy;
    if (c.dims.empty()) return;
    // The row dim (at most one, its stride a multiple of the columns), the line dims, and the
    // last dim: the run.
    const size_t run = c.dims.size() - 1;
    int64_t rowStep = 1, rowExtent = 1, rowInStride = 0, colSpan = c.dims[run] - 1;
    std::array<size_t, 8> lineDimsStore{};
    size_t lineCount = 0;
    for (size_t d = 0; d < run; ++d) {
        if (c.dims[d] <= 1) continue;
        if (c.outputStrides[d] % columns == 0) {
            rowStep = c.outputStrides[d] / columns;
            rowExtent = c.dims[d];
            rowInStride = c.inputStrides[d];
        } else {
            if (lineCount == lineDimsStore.size()) throw std::logic_error("gather piece with too many dims");
            lineDimsStore[lineCount++] = d;
            colSpan += (c.dims[d] - 1) * c.outputStrides[d];
        }
    }
    const std::span<const size_t> lineDims(lineDimsStore.data(), lineCount);
    const int64_t rowBase = c.outputOffset / columns, colBase = c.outputOffset % columns;
    // Pieces away from the block's columns or rows have nothing in it.
    if (colBase > block.n0 + block.n - 1 || colBase + colSpan < block.n0) return;
    // The piece's rows inside [k0, k0 + k).
    const int64_t firstRow = std::max<int64_t>(0, ceilDiv(block.k0 - rowBase, rowStep));
    const int64_t endRow = std::min<int64_t>(rowExtent, floorDiv(block.k0 + block.k - 1 - rowBase, rowStep) + 1);
    if (firstRow >= endRow) return;
    // Lines by flat index, the last line dim fastest.
    int64_t lines = 1;
    for (size_t d : lineDims) lines *= c.dims[d];
    const auto lineAt = [&](int64_t index, int64_t& col, int64_t& in) {
        col = colBase;
        in = c.inputOffset;
        for (size_t i = lineDims.size(); i-- > 0;) {
            const int64_t at = index % c.dims[lineDims[i]];
            index /= c.dims[lineDims[i]];
            col += at * c.outputStrides[lineDims[i]];
            in += at * c.inputStrides[lineDims[i]];
        }
    };
    // Nested line dims (each stride covering the dims inside it and the run) put the lines in
    // column order: only those that can meet the block's columns are visited.
    bool nested = true;
    int64_t inner = c.dims[run];
    for (size_t i = lineDims.size(); i-- > 0;) {
        nested = nested && c.outputStrides[lineDims[i]] >= inner;
        inner = c.outputStrides[lineDims[i]] * c.dims[lineDims[i]];
    }
    int64_t begin = 0, end = lines;
    if (nested) {
        const auto firstLineAtOrAfter = [&](int64_t column, int64_t reach) {  // first line whose col + reach >= column
            int64_t lo = 0, hi = lines;
            while (lo < hi) {
                const int64_t mid = (lo + hi) / 2;
                int64_t col = 0, in = 0;
                lineAt(mid, col, in);
                if (col + reach >= column) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            return lo;
        };
        begin = firstLineAtOrAfter(block.n0, c.dims[run] - 1);
        end = firstLineAtOrAfter(block.n0 + block.n, 0);
    }
    for (int64_t index = begin; index < end; ++index) {
        int64_t col = 0, in = 0;
        lineAt(index, col, in);
        // The run's columns col .. col + extent - 1, cut to [n0, n0 + n).
        const int64_t first = std::max<int64_t>(0, block.n0 - col);
        const int64_t last = std::min<int64_t>(c.dims[run], block.n0 + block.n - col);
        if (first < last) {
            visit({&piece, rowBase + firstRow * rowStep - block.k0, col + first - block.n0, endRow - firstRow, rowStep,
                   last - first, in + firstRow * rowInStride + first * c.inputStrides[run], rowInStride,
                   c.inputStrides[run]});
        }
    }
}

}  // namespace

void forEachGatherTransfer(const GemmProblem& problem, const GemmBlock& block,
                           const std::function<void(const GatherTransfer&)>& visit) {
    for (const GatherPiece& piece : problem.b.gather) pieceTransfers(piece, problem.n, block, visit);
}

GatherFill gatherFill(const GatherTransfer& fill) {
    const Tensor& value = *fill.piece->copy.fill;
    GatherFill out{fill.blockRow, fill.blockCol, fill.rows, fill.rowStep, fill.length, 0};
    std::memcpy(&out.value, value.bytes.data(), std::min<size_t>(value.bytes.size(), sizeof(out.value)));
    return out;
}

bool SlotFills::needed(size_t slot, std::vector<GatherFill> fills) {
    std::optional<std::vector<GatherFill>>& held = held_.at(slot);
    const bool inPlace = held && *held == fills;
    held = std::move(fills);
    return !inPlace;
}

int64_t gatherRowPeriod(const GemmProblem& problem) {
    int64_t period = 0;
    for (const GatherPiece& piece : problem.b.gather) {
        const StridedCopy& c = piece.copy;
        for (size_t d = 0; d < c.dims.size(); ++d) {
            if (c.dims[d] <= 1 || c.outputStrides[d] % problem.n != 0) continue;
            const int64_t step = c.outputStrides[d] / problem.n;
            period = period == 0 ? step : std::lcm(period, step);
        }
    }
    return period;
}

int64_t gatherPeriod(const GemmProblem& problem) {
    int64_t period = 0;
    for (const GatherPiece& piece : problem.b.gather) {
        const StridedCopy& c = piece.copy;
        for (size_t d = 0; d + 1 < c.dims.size(); ++d) {
            if (c.dims[d] > 1 && c.outputStrides[d] % problem.n != 0) period = std::max(period, c.outputStrides[d]);
        }
    }
    return period;
}

std::vector<int64_t> gatherAlignedBlocks(const GemmProblem& problem, const std::vector<int64_t>& sizes, int64_t unit) {
    const int64_t period = gatherPeriod(problem);
    std::vector<int64_t> aligned;
    if (period <= 1) return aligned;
    const auto add = [&](int64_t size) {
        if (size >= 1 && size < problem.n && std::find(sizes.begin(), sizes.end(), size) == sizes.end() &&
            std::find(aligned.begin(), aligned.end(), size) == aligned.end()) {
            aligned.push_back(size);
        }
    };
    // Whole periods, and whole periods that are also whole array tiles.
    const int64_t common = std::lcm(period, std::max<int64_t>(unit, 1));
    for (int64_t size : sizes) {
        add(size / period * period);
        add(size / common * common);
    }
    return aligned;
}

}  // namespace npusim::compiler
