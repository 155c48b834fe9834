// Tile IR for the vector unit: a loop nest over an index space whose trailing dims form one
// on-chip row. Each block of rows is loaded from DRAM through strided views, transformed by a
// short program of vector steps on block-local buffers, and stored through strided views.
// Elementwise ops with broadcasting, reductions, softmax, normalisation and every pure data
// movement (a program with no steps) are problems of this one shape.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arch/arch_config.h"
#include "arch/dtype.h"
#include "arch/isa.h"
#include "compiler/graph/graph.h"
#include "compiler/tile/cost_estimate.h"

namespace npusim::compiler {

/// What part of a block a buffer holds: the whole block (rows x cols), one value per row (a
/// column vector, read by the vector unit's `column` mode) or one row shared by every row of
/// the block (a row vector, `row` mode).
enum class BufferExtent : uint8_t { Block, Column, Row };

/// A strided view of a DRAM tensor over the problem's index space: element (i0, i1, ...) of
/// the index space is element `offset + sum(i_d * strides[d])` of the tensor. Stride 0
/// broadcasts.
struct TensorView {
    ValueId value = kNoValue;
    int64_t offset = 0;
    std::vector<int64_t> strides;
};

struct VectorBuffer {
    DType dtype = DType::Fp32;
    BufferExtent extent = BufferExtent::Block;
    /// Elements per row of a Block buffer that holds a padded plane (a PlaneLayout load's);
    /// 0: the problem's columns.
    int64_t width = 0;
};

/// How a load lays one plane of a tensor into each row of its buffer: the plane's `extents`
/// (its spatial dims, `dramStrides` apart in the tensor) land at `onchipOffset` with
/// `onchipStrides` in the row, and every other element of the row holds `padBits` (written
/// when the kernel first uses the buffer). A sliding window then reads the padded plane.
struct PlaneLayout {
    Shape extents;
    std::vector<int64_t> dramStrides, onchipStrides;
    int64_t onchipOffset = 0;
    uint32_t padBits = 0;
};

/// Rows of a table picked by indices known only at run time (an embedding lookup): element
/// (i0, i1, ...) of the index space is element `view.offset + sum(i_d * view.strides[d]) +
/// index * rowStride` of the table, where `index` is element `offset + sum(i_d * strides[d])`
/// of the `list` view (int32 or int64, `bytes` each; negative counts back from `limit`, the
/// table's rows). The list varies along row dims only; the DMA reads it from DRAM.
struct RowIndices {
    TensorView list;
    uint32_t bytes = 8;
    int64_t limit = 0;
    int64_t rowStride = 0;
};

/// A DRAM view loaded into a buffer. A Column buffer's view must not vary along the column
/// dims, a Row buffer's not along the row dims. With a plane, the view addresses the row dims
/// only (its column strides are 0) and the plane gives each row's elements. With indices, a
/// Block buffer's rows are the table rows they name; the view's columns are one dense run.
struct VectorLoad {
    TensorView view;
    uint32_t buffer = 0;
    std::optional<PlaneLayout> plane;
    std::optional<RowIndices> indices;
};

/// A buffer stored through a DRAM view; a Column buffer stores one element per row.
struct VectorStore {
    uint32_t buffer = 0;
    TensorView view;
};

/// A sliding window's tap over a plane buffer: for column index (j_1, ..., j_c) of the block,
/// element `offset + sum(j_i * strides[i])` of the buffer's row.
struct WindowRead {
    int64_t offset = 0;
    std::vector<int64_t> strides;
};

/// One vector command per block: dst = op(src0, operand1), where operand1 is src1 (read in the
/// mode its extent gives) or the immediate. Reductions read a Block and write a Column. A
/// windowed step reads src0, a plane buffer, through its window (windowCommands).
struct VectorStep {
    isa::VectorOp op = isa::VectorOp::Copy;
    uint32_t dst = 0, src0 = 0;
    std::optional<uint32_t> src1;
    std::optional<uint32_t> immediate;  ///< fp32 or int32 bits, as the ISA's `imm`
    uint32_t immediate2 = 0;
    std::optional<WindowRead> window;
};

/// The math of one vector-unit kernel. `dims` lists the row dims, then `colDims` column dims;
/// there is at least one of each (extent-1 dims are added where an op has none).
struct VectorProblem {
    uint32_t opId = 0;
    std::string name;  ///< what the kernel does, for the tile IR text ("softmax", "copy")
    isa::CommandKind kind = isa::CommandKind::Compute;  ///< reported kind of its commands
    Shape dims;
    int colDims = 1;
    std::vector<VectorBuffer> buffers;
    std::vector<VectorLoad> loads;
    std::vector<VectorStep> steps;
    std::vector<VectorStore> stores;
    /// On-chip strides of the column dims when a block's rows are padded: a window kernel's
    /// rows keep its input planes' pitch, so that each tap is one run. Empty: dense.
    std::vector<int64_t> colPitch;
    /// Set with colPitch [last column extent, 1] over two column dims: the output rows (rows
    /// of the first column dim) each block row holds beyond its extent, computed and never
    /// stored. A window's tap is then one command whose rows are every output row of every
    /// block row, its plane buffer `padRows + extent` times the window's row step wide.
    std::optional<int64_t> padRows;

    int rowDims() const { return static_cast<int>(dims.size()) - colDims; }
    int64_t rows() const;  ///< product of the row dims
    int64_t cols() const;  ///< product of the column dims
    int64_t blockCols() const;  ///< elements of a row of a Block buffer on chip (cols(), or padded)
};

/// How the rows are cut into blocks: dims before `blockDim` are iterated one index at a time,
/// `blockDim` in steps of `blockExtent`, and the row dims after it are whole in every block.
struct VectorSchedule {
    int blockDim = 0;
    int64_t blockExtent = 1;
    bool doubleBuffer = true;
    CostEstimate estimate;
};

/// One block: the index of each row dim before blockDim, and the range along blockDim.
struct VectorBlock {
    std::vector<int64_t> prefix;
    int64_t start = 0, extent = 0;
    int64_t rows = 0;  ///< rows in the block: extent times the whole row dims after blockDim
};

/// Visits the blocks in execution order.
void forEachVectorBlock(const VectorProblem& problem, const VectorSchedule& schedule,
                        const std::function<void(const VectorBlock&)>& visit);

/// Visits one block of each size (full blocks, then the tail along blockDim if there is one)
/// with how many blocks of that size the schedule runs.
void forEachVectorBlockSize(const VectorProblem& problem, const VectorSchedule& schedule,
                            const std::function<void(const VectorBlock&, int64_t count)>& visit);

/// One DMA transfer of a block, in elements: `planes` x `rows` runs of `rowElements`
/// elements, `elementStride` apart in DRAM (1: contiguous) and contiguous on chip. On chip,
/// offsets are relative to the buffer's start.
struct BlockTransfer {
    int64_t dramOffset = 0, dramPlaneStride = 0, dramRowStride = 0;
    int64_t onchipOffset = 0, onchipPlaneStride = 0, onchipRowStride = 0;
    int64_t planes = 1, rows = 1, rowElements = 1;
    int64_t elementStride = 1;
    /// An indexed load's transfer: its rows are the table rows named by the list's elements
    /// from this one on (dramRowStride: the table's row stride); -1: not indexed.
    int64_t firstIndex = -1;
    /// Elements from the first of a row to the last, in DRAM.
    int64_t rowSpan() const { return (rowElements - 1) * elementStride + 1; }
};

/// The transfers that move a block of `view` to or from a buffer of `extent`, laid out row
/// major on chip (a Block buffer as rows x cols, a Column buffer as rows, a Row buffer as
/// cols). Adjacent dims are merged where both sides allow; a run's elements are contiguous on
/// chip and evenly strided in DRAM, at most `maxElementStride` apart; rows and planes never
/// exceed the ISA's 16-bit fields.
std::vector<BlockTransfer> blockTransfers(const VectorProblem& problem, const VectorSchedule& schedule,
                                          const VectorBlock& block, const TensorView& view,
                                          BufferExtent extent, int64_t maxElementStride);
/// The farthest apart, in elements of `elementBytes`, a run's elements may lie in DRAM for one
/// strided DMA row to beat a row per element: on chip (a resident tensor), any distance; from
/// DRAM, while the bytes a strided row spans move no slower than its elements would issue a
/// burst each on the DMA's channels (stride x channels <= DRAM bytes per cycle).
int64_t maxElementStride(const ArchConfig& config, uint64_t elementBytes, bool onChip);

/// The transfers of a load for a block: blockTransfers, or with a plane, each row's plane at
/// its place in the padded row, or with indices, runs of the index list's rows (firstIndex).
std::vector<BlockTransfer> loadTransfers(const VectorProblem& problem, const VectorSchedule& schedule,
                                         const VectorBlock& block, const VectorLoad& load, int64_t maxElementStride);

/// Rows in a full block of the schedule: what each buffer slot holds.
int64_t blockCapacityRows(const VectorProblem& problem, const VectorSchedule& schedule);

/// Elements of a buffer for a block of `rows` rows.
int64_t bufferElements(const VectorProblem& problem, const VectorBuffer& buffer, int64_t rows);

/// Whether a view walks its whole tensor of `elements` in row-major order over the problem's
/// index space.
bool denseWalk(const VectorProblem& problem, const TensorView& view, int64_t elements);

/// True when the problem reads a plane through a window (it has a PlaneLayout load): its
/// buffers are not all of the block's shape, so it fuses with no other kernel.
bool hasWindows(const VectorProblem& problem);
/// True when a load of the problem picks its rows by indices read at run time.
bool hasIndexedLoads(const VectorProblem& problem);

/// One vector command of a windowed step, in elements relative to each buffer's start: `rows`
/// rows of `cols` with these row strides. `src1Scalar`: a Column src1 read as one value per
/// command (the ISA's scalar mode) because the command's rows are not the block's.
struct WindowCommand {
    int64_t dst = 0, src0 = 0, src1 = 0;
    int64_t rows = 1, cols = 1, dstStride = 0, src0Stride = 0, src1Stride = 0;
    int64_t src0ColStride = 1;  ///< the window's stride along the last column dim
    bool src1Scalar = false;
};

/// The commands of windowed step `step` on a block of `blockRows` rows, in the orientation that
/// takes fewer: the block's rows as the command's rows (one command per index of the column
/// dims before the last), or the second-to-last column dim as the rows (one command per block
/// row and index of the dims before it). The last column dim is each command's row, read at
/// the window's stride. With padded block rows (colPitch), the whole tap is one command: the
/// window's strides must then be its last stride times the pitch; with padRows as well, its
/// rows are the output rows of the block's rows (several commands when they exceed the ISA's
/// rows field).
std::vector<WindowCommand> windowCommands(const VectorProblem& problem, const VectorStep& step, int64_t blockRows);

/// The problem with its column dim cut into (extent / inner) rows of `inner` columns, `inner`
/// the largest divisor of the extent not above `limit`: the same math in shorter rows, for
/// an on-chip memory too small for whole ones. nullopt when that changes nothing or cannot
/// be done: more than one column dim, or steps that reduce whole rows.
std::optional<VectorProblem> splitColumns(const VectorProblem& problem, int64_t limit);

struct VectorKernel {
    VectorProblem problem;
    VectorSchedule schedule;
};

/// A graph op on the vector unit: one kernel, or several run in order (Concat's inputs,
/// Pad's fill and copy).
struct VectorTiles {
    uint32_t opId = 0;
    std::vector<VectorKernel> kernels;
    /// Set when fusion moved this op's kernel into the kernel of the op that reads its result.
    std::optional<uint32_t> fusedInto;
};

}  // namespace npusim::compiler
