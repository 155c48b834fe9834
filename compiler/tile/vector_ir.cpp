// Vector tile IR: block iteration and the DMA transfers of a block.
#include "compiler/tile/vector_ir.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "compiler/graph/op_support.h"

namespace npusim::compiler {
namespace {

/// The ISA's rows and planes fields (of transfers and of vector commands) are 16 bits wide.
constexpr int64_t kMaxRowsField = 0xffff;

int64_t product(const Shape& dims, size_t begin, size_t end) {
    int64_t result = 1;
    for (size_t d = begin; d < end; ++d) result *= dims[d];
    return result;
}

/// One dim of a block transfer: its extent and the strides on both sides (and in an indexed
/// load's index list).
struct TransferDim {
    int64_t extent = 1, dramStride = 0, onchipStride = 0, listStride = 0;
};

/// The dims without those of one index, neighbours that step alike everywhere merged.
std::vector<TransferDim> mergedDims(const std::vector<TransferDim>& dims) {
    std::vector<TransferDim> merged;
    for (const TransferDim& dim : dims) {
        if (dim.extent == 1) continue;
        if (!merged.empty()) {
            TransferDim& last = merged.back();
            if (last.dramStride == dim.dramStride * dim.extent && last.onchipStride == dim.onchipStride * dim.extent &&
                last.listStride == dim.listStride * dim.extent) {
                last = {last.extent * dim.extent, dim.dramStride, dim.onchipStride, dim.listStride};
                continue;
            }
        }
        merged.push_back(dim);
    }
    return merged;
}

/// Emits the transfers for `outer` (dims iterated by separate transfers, outermost first),
/// the planes and rows dims (split where they exceed the ISA's fields) and the run length. An
/// indexed load's rows (`tableRowStride` set) step its index list, not DRAM: each transfer
/// names the list element of its first row and the table's row stride.
class TransferEmitter {
public:
    TransferEmitter(std::vector<TransferDim> outer, TransferDim planes, TransferDim rows, int64_t rowElements,
                    int64_t elementStride, std::vector<BlockTransfer>& out, std::optional<int64_t> tableRowStride = {})
        : outer_(std::move(outer)),
          planes_(planes),
          rows_(rows),
          rowElements_(rowElements),
          elementStride_(elementStride),
          tableRowStride_(tableRowStride),
          out_(out) {}

    void emit(size_t depth, int64_t dram, int64_t onchip, int64_t list = 0) {
        if (depth < outer_.size()) {
            const TransferDim& dim = outer_[depth];
            for (int64_t i = 0; i < dim.extent; ++i) {
                emit(depth + 1, dram + i * dim.dramStride, onchip + i * dim.onchipStride, list + i * dim.listStride);
            }
            return;
        }
        for (int64_t p = 0; p < planes_.extent; p += kMaxRowsField) {
            for (int64_t r = 0; r < rows_.extent; r += kMaxRowsField) {
                BlockTransfer t;
                t.dramOffset = dram + p * planes_.dramStride + r * rows_.dramStride;
                t.onchipOffset = onchip + p * planes_.onchipStride + r * rows_.onchipStride;
                t.planes = std::min(kMaxRowsField, planes_.extent - p);
                t.dramPlaneStride = planes_.dramStride;
                t.onchipPlaneStride = planes_.onchipStride;
                t.rows = std::min(kMaxRowsField, rows_.extent - r);
                t.dramRowStride = tableRowStride_.value_or(rows_.dramStride);
                t.onchipRowStride = rows_.onchipStride;
                t.rowElements = rowElements_;
                t.elementStride = elementStride_;
                if (tableRowStride_) t.firstIndex = list + r * rows_.listStride;
                out_.push_back(t);
            }
        }
    }

private:
    std::vector<TransferDim> outer_;
    TransferDim planes_, rows_;
    int64_t rowElements_, elementStride_;
    std::optional<int64_t> tableRowStride_;
    std::vector<BlockTransfer>& out_;
};

/// The transfers of a block whose dims (outermost first) have these extents and strides: dims
/// of one index dropped, neighbours that step alike on both sides merged, the innermost a
/// strided run where the DMA allows, the next two rows and planes, any others iterated.
std::vector<BlockTransfer> transfersOf(const std::vector<TransferDim>& dims, int64_t dram, int64_t onchip,
                                       int64_t maxElementStride) {
    std::vector<TransferDim> merged = mergedDims(dims);
    // The innermost dim is a run when it is contiguous on chip and steps forward in DRAM (a
    // strided one gathers: a pooling window's or strided convolution's inputs).
    int64_t rowElements = 1, elementStride = 1;
    if (!merged.empty() && merged.back().dramStride >= 1 && merged.back().dramStride <= maxElementStride &&
        merged.back().onchipStride == 1) {
        rowElements = merged.back().extent;
        elementStride = merged.back().dramStride;
        merged.pop_back();
    }
    TransferDim rows, planes;
    if (!merged.empty()) {
        rows = merged.back();
        merged.pop_back();
    }
    if (!merged.empty()) {
        planes = merged.back();
        merged.pop_back();
    }
    std::vector<BlockTransfer> transfers;
    TransferEmitter(std::move(merged), planes, rows, rowElements, elementStride, transfers).emit(0, dram, onchip);
    return transfers;
}

/// The DRAM element at which a block of `view` starts.
int64_t blockOrigin(const VectorSchedule& schedule, const VectorBlock& block, const TensorView& view) {
    const auto blockDim = static_cast<size_t>(schedule.blockDim);
    int64_t dram = view.offset + block.start * view.strides[blockDim];
    for (size_t d = 0; d < blockDim; ++d) dram += block.prefix[d] * view.strides[d];
    return dram;
}

/// The transfers of an indexed load for a block. The block's row dims step the table view
/// and the index list; the innermost, where the list steps by one element and the view stays,
/// is each transfer's rows (a run of the list), the next, where the list stays, its planes,
/// and any others are iterated (rows of one index where no dim qualifies). A row is the
/// problem's columns, one dense run of the table.
std::vector<BlockTransfer> indexedTransfers(const VectorProblem& problem, const VectorSchedule& schedule,
                                            const VectorBlock& block, const VectorLoad& load) {
    const RowIndices& indices = load.indices.value();
    const TensorView& view = load.view;
    const auto blockDim = static_cast<size_t>(schedule.blockDim);
    const auto rowDims = static_cast<size_t>(problem.rowDims());
    int64_t columnStride = 1;
    for (size_t d = problem.dims.size(); d-- > rowDims;) {
        if (problem.dims[d] != 1 && view.strides[d] != columnStride) {
            throw std::logic_error("vector IR: an indexed load's columns must be one dense run of its table");
        }
        columnStride *= problem.dims[d];
    }
    std::vector<TransferDim> dims;
    for (size_t d = blockDim; d < rowDims; ++d) {
        dims.push_back({d == blockDim ? block.extent : problem.dims[d], view.strides[d], 0, indices.list.strides[d]});
    }
    int64_t onchipStride = problem.blockCols();
    for (size_t i = dims.size(); i-- > 0;) {
        dims[i].onchipStride = onchipStride;
        onchipStride *= dims[i].extent;
    }
    std::vector<TransferDim> merged = mergedDims(dims);
    TransferDim rows{1, 0, problem.blockCols(), 1}, planes;
    if (!merged.empty() && merged.back().listStride == 1 && merged.back().dramStride == 0) {
        rows = merged.back();
        merged.pop_back();
    }
    if (rows.extent > 1 && !merged.empty() && merged.back().listStride == 0) {
        planes = merged.back();
        merged.pop_back();
    }
    std::vector<BlockTransfer> transfers;
    TransferEmitter(std::move(merged), planes, rows, problem.cols(), 1, transfers, indices.rowStride)
        .emit(0, blockOrigin(schedule, block, view), 0, blockOrigin(schedule, block, indices.list));
    return transfers;
}

}  // namespace

int64_t VectorProblem::rows() const {
    return product(dims, 0, static_cast<size_t>(rowDims()));
}

int64_t VectorProblem::cols() const {
    return product(dims, static_cast<size_t>(rowDims()), dims.size());
}

int64_t VectorProblem::blockCols() const {
    return colPitch.empty() ? cols() : (dims[static_cast<size_t>(rowDims())] + padRows.value_or(0)) * colPitch.front();
}

int64_t blockCapacityRows(const VectorProblem& problem, const VectorSchedule& schedule) {
    const auto blockDim = static_cast<size_t>(schedule.blockDim);
    return schedule.blockExtent * product(problem.dims, blockDim + 1, static_cast<size_t>(problem.rowDims()));
}

int64_t bufferElements(const VectorProblem& problem, const VectorBuffer& buffer, int64_t rows) {
    switch (buffer.extent) {
        case BufferExtent::Block: return rows * (buffer.width > 0 ? buffer.width : problem.blockCols());
        case BufferExtent::Column: return rows;
        case BufferExtent::Row: return problem.blockCols();
    }
    return 0;
}

void forEachVectorBlock(const VectorProblem& problem, const VectorSchedule& schedule,
                        const std::function<void(const VectorBlock&)>& visit) {
    const auto blockDim = static_cast<size_t>(schedule.blockDim);
    const auto rowDims = static_cast<size_t>(problem.rowDims());
    const int64_t wholeRows = product(problem.dims, blockDim + 1, rowDims);
    VectorBlock block;
    block.prefix.assign(blockDim, 0);
    while (true) {
        for (int64_t start = 0; start < problem.dims[blockDim]; start += schedule.blockExtent) {
            block.start = start;
            block.extent = std::min(schedule.blockExtent, problem.dims[blockDim] - start);
            block.rows = block.extent * wholeRows;
            visit(block);
        }
        // Next prefix, last dim fastest.
        size_t d = blockDim;
        while (d > 0 && ++block.prefix[d - 1] == problem.dims[d - 1]) block.prefix[--d] = 0;
        if (d == 0) return;
    }
}

void forEachVectorBlockSize(const VectorProblem& problem, const VectorSchedule& schedule,
                            const std::function<void(const VectorBlock&, int64_t count)>& visit) {
    const auto blockDim = static_cast<size_t>(schedule.blockDim);
    const int64_t prefixes = product(problem.dims, 0, blockDim);
    const int64_t wholeRows = product(problem.dims, blockDim + 1, static_cast<size_t>(problem.rowDims()));
    const int64_t extent = problem.dims[blockDim];
    VectorBlock block;
    block.prefix.assign(blockDim, 0);
    block.extent = std::min(schedule.blockExtent, extent);
    block.rows = block.extent * wholeRows;
    visit(block, prefixes * (extent / block.extent));
    if (const int64_t tail = extent % block.extent; tail != 0) {
        block.start = extent - tail;
        block.extent = tail;
        block.rows = tail * wholeRows;
        visit(block, prefixes);
    }
}

std::vector<BlockTransfer> blockTransfers(const VectorProblem& problem, const VectorSchedule& schedule,
                                          const VectorBlock& block, const TensorView& view,
                                          BufferExtent extent, int64_t maxElementStride) {
    const auto blockDim = static_cast<size_t>(schedule.blockDim);
    const auto rowDims = static_cast<size_t>(problem.rowDims());
    // The block's dims, outermost first, with the on-chip layout of the buffer's part of it:
    // dense, or the column dims at their pitch in padded block rows.
    std::vector<TransferDim> dims;
    std::vector<size_t> problemDim;
    for (size_t d = blockDim; d < problem.dims.size(); ++d) {
        const bool isRowDim = d < rowDims;
        if ((extent == BufferExtent::Column && !isRowDim) || (extent == BufferExtent::Row && isRowDim)) continue;
        dims.push_back({d == blockDim ? block.extent : problem.dims[d], view.strides[d], 0});
        problemDim.push_back(d);
    }
    int64_t onchipStride = 1;
    for (size_t i = dims.size(); i-- > 0;) {
        if (!problem.colPitch.empty() && problemDim[i] >= rowDims) {
            dims[i].onchipStride = problem.colPitch[problemDim[i] - rowDims];
            onchipStride = problem.blockCols();
            continue;
        }
        dims[i].onchipStride = onchipStride;
        onchipStride *= dims[i].extent;
    }
    return transfersOf(dims, blockOrigin(schedule, block, view), 0, maxElementStride);
}

std::vector<BlockTransfer> loadTransfers(const VectorProblem& problem, const VectorSchedule& schedule,
                                         const VectorBlock& block, const VectorLoad& load, int64_t maxElementStride) {
    const VectorBuffer& buffer = problem.buffers[load.buffer];
    if (load.indices) return indexedTransfers(problem, schedule, block, load);
    if (!load.plane) return blockTransfers(problem, schedule, block, load.view, buffer.extent, maxElementStride);
    // The block's row dims, each row a padded plane, then the plane's dims.
    const PlaneLayout& plane = *load.plane;
    std::vector<TransferDim> dims;
    for (auto d = static_cast<size_t>(schedule.blockDim); d < static_cast<size_t>(problem.rowDims()); ++d) {
        dims.push_back({d == static_cast<size_t>(schedule.blockDim) ? block.extent : problem.dims[d], load.view.strides[d], 0});
    }
    int64_t onchipStride = buffer.width;
    for (size_t i = dims.size(); i-- > 0;) {
        dims[i].onchipStride = onchipStride;
        onchipStride *= dims[i].extent;
    }
    for (size_t i = 0; i < plane.extents.size(); ++i) {
        dims.push_back({plane.extents[i], plane.dramStrides[i], plane.onchipStrides[i]});
    }
    return transfersOf(dims, blockOrigin(schedule, block, load.view), plane.onchipOffset, maxElementStride);
}

bool denseWalk(const VectorProblem& problem, const TensorView& view, int64_t elements) {
    if (view.offset != 0 || elementCount(problem.dims) != elements) return false;
    int64_t stride = 1;
    for (size_t d = problem.dims.size(); d-- > 0;) {
        if (problem.dims[d] != 1 && view.strides[d] != stride) return false;
        stride *= problem.dims[d];
    }
    return true;
}

bool hasWindows(const VectorProblem& problem) {
    return std::any_of(problem.loads.begin(), problem.loads.end(), [](const VectorLoad& load) { return load.plane.has_value(); });
}

bool hasIndexedLoads(const VectorProblem& problem) {
    return std::any_of(problem.loads.begin(), problem.loads.end(), [](const VectorLoad& load) { return load.indices.has_value(); });
}

std::vector<WindowCommand> windowCommands(const VectorProblem& problem, const VectorStep& step, int64_t blockRows) {
    const WindowRead& window = step.window.value();
    const auto colDims = static_cast<size_t>(problem.colDims);
    const Shape cols(problem.dims.end() - problem.colDims, problem.dims.end());
    const int64_t width = problem.buffers[step.src0].width, blockCols = problem.blockCols();
    const int64_t last = cols.back(), stride = window.strides.back();
    const std::optional<BufferExtent> src1 =
        step.src1 ? std::optional(problem.buffers[*step.src1].extent) : std::nullopt;
    if (!problem.colPitch.empty() && problem.padRows) {
        // Each block row holds its output rows (and padRows more) densely, and its plane is as
        // many window row steps wide: the command's rows are the output rows of every block
        // row, one row step apart in the planes.
        const int64_t outputRows = cols.front() + *problem.padRows;
        const bool blockSrc1 = step.src1 && problem.buffers[*step.src1].extent == BufferExtent::Block;
        const bool columnSrc1 = step.src1 && problem.buffers[*step.src1].extent == BufferExtent::Column;
        if (colDims != 2 || width != outputRows * window.strides.front() || columnSrc1 ||
            problem.colPitch != std::vector<int64_t>{last, 1}) {
            throw std::logic_error("a window not along the padded output rows");
        }
        std::vector<WindowCommand> commands;
        const int64_t perCommand = std::max<int64_t>(1, kMaxRowsField / outputRows);
        for (int64_t r = 0; r < blockRows; r += perCommand) {
            const int64_t rows = std::min(perCommand, blockRows - r);
            commands.push_back({.dst = r * blockCols,
                                .src0 = r * width + window.offset,
                                .src1 = blockSrc1 ? r * blockCols : 0,
                                .rows = rows * outputRows,
                                .cols = last,
                                .dstStride = last,
                                .src0Stride = window.strides.front(),
                                .src1Stride = blockSrc1 ? last : 0,
                                .src0ColStride = stride});
        }
        return commands;
    }
    if (!problem.colPitch.empty()) {
        // The block's rows keep the planes' pitch: the tap is one run over every column dim.
        int64_t run = 1;
        for (size_t i = 0; i < colDims; ++i) {
            if (window.strides[i] != stride * problem.colPitch[i]) throw std::logic_error("a window not along the padded block rows");
            run += (cols[i] - 1) * problem.colPitch[i];
        }
        return {{.src0 = window.offset, .rows = blockRows, .cols = run, .dstStride = blockCols, .src0Stride = width,
                 .src1Stride = src1 == BufferExtent::Block ? blockCols : 0, .src0ColStride = stride}};
    }
    // The offsets of column index (j_1, ..., j_{c-1}, 0) in the block's row and in the plane,
    // for the leading indices given (the others 0).
    const auto offsets = [&](const std::vector<int64_t>& index) {
        int64_t dst = 0, src0 = window.offset;
        for (size_t i = 0; i + 1 < colDims; ++i) {
            const int64_t j = i < index.size() ? index[i] : 0;
            dst = dst * cols[i] + j;
            src0 += j * window.strides[i];
        }
        return std::pair{dst * last, src0};
    };
    std::vector<WindowCommand> commands;
    if (colDims >= 2 && blockRows * product(cols, 0, colDims - 2) < product(cols, 0, colDims - 1)) {
        // Rows along the second-to-last column dim, a command per block row and outer index.
        const bool column = src1 == BufferExtent::Column;
        for (int64_t r = 0; r < blockRows; ++r) {
            ops::forEachPosition(Shape(cols.begin(), cols.end() - 2), [&](const std::vector<int64_t>& index) {
                const auto [dst, src0] = offsets(index);
                commands.push_back({.dst = r * blockCols + dst,
                                    .src0 = r * width + src0,
                                    .src1 = column ? r : src1 ? r * blockCols + dst : 0,
                                    .rows = cols[colDims - 2],
                                    .cols = last,
                                    .dstStride = last,
                                    .src0Stride = window.strides[colDims - 2],
                                    .src1Stride = src1 && !column ? last : 0,
                                    .src0ColStride = stride,
                                    .src1Scalar = column});
            });
        }
        return commands;
    }
    // The block's rows as the rows, a command per index of the column dims before the last.
    const bool block = src1 == BufferExtent::Block;
    ops::forEachPosition(Shape(cols.begin(), cols.end() - 1), [&](const std::vector<int64_t>& index) {
        const auto [dst, src0] = offsets(index);
        commands.push_back({.dst = dst,
                            .src0 = src0,
                            .src1 = block ? dst : 0,
                            .rows = blockRows,
                            .cols = last,
                            .dstStride = blockCols,
                            .src0Stride = width,
                            .src1Stride = block ? blockCols : 0,
                            .src0ColStride = stride});
    });
    return commands;
}

int64_t maxElementStride(const ArchConfig& config, uint64_t elementBytes, bool onChip) {
    if (onChip) return std::numeric_limits<int64_t>::max();
    const double bytes = config.dram.bytesPerCycle / config.dma.channels;
    return std::max<int64_t>(1, static_cast<int64_t>(bytes / static_cast<double>(elementBytes)));
}

std::optional<VectorProblem> splitColumns(const VectorProblem& problem, int64_t limit) {
    if (problem.colDims != 1 || limit < 1 || !problem.colPitch.empty()) return std::nullopt;
    const bool reduces = std::any_of(problem.steps.begin(), problem.steps.end(), [](const VectorStep& step) {
        return step.op == isa::VectorOp::ReduceSum || step.op == isa::VectorOp::ReduceMax;
    });
    const int64_t extent = problem.dims.back();
    if (reduces || extent <= limit) return std::nullopt;
    int64_t inner = limit;
    while (extent % inner != 0) --inner;
    VectorProblem split = problem;
    split.dims.back() = extent / inner;
    split.dims.push_back(inner);
    const auto splitView = [inner](TensorView& view) {
        const int64_t stride = view.strides.back();
        view.strides.back() = stride * inner;
        view.strides.push_back(stride);
    };
    for (VectorLoad& load : split.loads) {
        splitView(load.view);
        if (load.indices) load.indices->list.strides.push_back(0);  // the list stays along columns
    }
    for (VectorStore& store : split.stores) splitView(store.view);
    // A row shared by every row of the block now varies along the new row dim.
    for (VectorBuffer& buffer : split.buffers) {
        if (buffer.extent == BufferExtent::Row) buffer.extent = BufferExtent::Block;
    }
    return split;
}

}  // namespace npusim::compiler
