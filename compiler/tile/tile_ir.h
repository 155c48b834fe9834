// Tile IR: each NPU op as a loop nest over blocks that fit on chip, with the block sizes,
// loop order and buffering chosen for the target (the schedule), kept apart from the math
// (the problem). Codegen and the cost model walk the same block sequence (forEachGemmBlock).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "arch/arch_config.h"
#include "arch/dtype.h"
#include "arch/isa.h"
#include "compiler/cpu/host_kernels.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/strided_copy.h"
#include "compiler/tile/cost_estimate.h"
#include "compiler/tile/vector_ir.h"

namespace npusim::compiler {

/// How the bias of a GEMM broadcasts over the M x N result.
enum class BiasMode : uint8_t { Scalar, Row, Column, Full };

/// A piece of an operand that is gathered on chip instead of read from its own DRAM tensor:
/// `copy` maps its index space to elements of the row-major operand matrix (its output side)
/// and of `source` (its input side), or fills them with `copy.fill`.
struct GatherPiece {
    ValueId source = kNoValue;
    StridedCopy copy;
};

/// One GEMM operand as stored in DRAM.
struct GemmOperand {
    ValueId value = kNoValue;
    /// Stored transposed (A as K x M, B as N x K): loaded through a transposing DMA.
    bool transposed = false;
    /// Elements between consecutive stored rows; 0: as many as a stored row has (a dense
    /// matrix). A matrix read in place from a larger tensor (a head of an attention's
    /// activations, a transposed view of them) has more.
    int64_t rowStride = 0;
    /// A constant the compiler may store in the layout the GEMM's blocks load (bandColumns):
    /// the cost model prices each block of it as one DRAM run. pack-constant-operands clears
    /// it where the constant must stay row-major.
    bool packable = false;
    /// When not 0 (a constant, not transposed), each matrix is stored in bands of this many
    /// columns, one after another, each band's rows side by side (the last band may be
    /// narrower): a block within one band is one run. pack-constant-operands sets it.
    int64_t bandColumns = 0;
    /// Element offset of each batch's matrix (broadcast batches repeat an offset).
    std::vector<int64_t> batchOffsets;
    /// When not empty, `value` is never stored: each block is gathered from these pieces (an
    /// Im2Col fused into the GEMM that reads it). Each piece has at most one dim stepping
    /// over matrix rows, and its other dims stay within one row, the last stepping by one.
    std::vector<GatherPiece> gather;
};

/// An elementwise step applied to each finished result block where it sits in the accumulator
/// memory, before it is stored: a fused activation.
struct EpilogueStep {
    isa::VectorOp op = isa::VectorOp::Relu;
    std::optional<uint32_t> immediate;
    uint32_t immediate2 = 0;
    /// The step's operand and result types: a cast between int32 and fp32 converts in place; a
    /// narrower result (a quantise to int8, a cast to bf16) can only be the last step's, the
    /// type the GEMM stores.
    DType in = DType::Fp32, out = DType::Fp32;
    /// A step whose second operand is a vector of one value per result row (BiasMode::Column)
    /// or column (BiasMode::Row), a per-channel requantisation's multipliers, or a tensor of the
    /// result's shape (BiasMode::Full, a residual connection's other branch): each block's part
    /// is loaded into slots of the step's own, as a bias is.
    ValueId operand = kNoValue;
    BiasMode operandMode = BiasMode::Column;
    /// The operand as stored: fp32, or an int8 or uint8 tensor dequantised where its block
    /// lands ((x - operandZeroPoint) * operandScale), before the step reads it as fp32.
    DType operandType = DType::Fp32;
    float operandScale = 1.0f;
    int32_t operandZeroPoint = 0;
};

/// The math of one tensor-unit op: for each batch b, Y[b] = epilogue(alpha * (R[b] + (A[b] - za)
/// x (B[b] - zb)) + beta * bias), with A M x K, B K x N and R (the residual, when set) M x N.
struct GemmProblem {
    uint32_t opId = 0;
    DType operandType = DType::Fp32;      ///< A and B
    DType accumulatorType = DType::Fp32;  ///< int32 for integer operands, else fp32
    /// Y as stored: the accumulator's type, or the 16-bit float type of the operands, to
    /// which each finished block is rounded in place before it is stored.
    DType outputType = DType::Fp32;
    int64_t batch = 1, m = 0, n = 0, k = 0;
    GemmOperand a, b;
    int32_t aZeroPoint = 0, bZeroPoint = 0;
    float alpha = 1.0f;
    ValueId bias = kNoValue;
    BiasMode biasMode = BiasMode::Full;
    float beta = 1.0f;
    std::vector<EpilogueStep> epilogue;
    /// A tensor of Y's shape and layout added to the product (a residual connection's Add
    /// fused into the GEMM): each result block's accumulator slot is loaded with its part
    /// before the first K block accumulates onto it.
    ValueId residual = kNoValue;
    /// Where Y goes: the op's result, or the result of the elementwise op fused as its epilogue.
    ValueId output = kNoValue;
};

/// The epilogue steps that take an operand, in order: each has slots of its own.
inline std::vector<const EpilogueStep*> epilogueOperandSteps(const GemmProblem& p) {
    std::vector<const EpilogueStep*> steps;
    for (const EpilogueStep& step : p.epilogue) {
        if (step.operand != kNoValue) steps.push_back(&step);
    }
    return steps;
}

/// The type a GEMM's results have after its epilogue, before any rounding to outputType.
inline DType epilogueResult(const GemmProblem& p) { return p.epilogue.empty() ? p.accumulatorType : p.epilogue.back().out; }

/// Loop order of the block loops (the K loop is always innermost: a result block is finished
/// before it is stored).
enum class GemmLoopOrder : uint8_t { MOuter, NOuter };

struct GemmSchedule {
    int64_t mBlock = 0, nBlock = 0, kBlock = 0;
    GemmLoopOrder order = GemmLoopOrder::MOuter;
    bool doubleBuffer = true;
    /// The array computes each block's transpose, Y^T = B^T A^T: B's block streams through the
    /// array and A's is held (gemm transpose=1); operands and results stay where they are. It
    /// fills a weight-stationary array when N is small and M large (a late convolution layer's
    /// positions and channels).
    bool transposed = false;
    CostEstimate estimate;
};

/// One block iteration: the block's origin and extent, in elements.
struct GemmBlock {
    int64_t batch = 0, m0 = 0, n0 = 0, k0 = 0;
    int64_t m = 0, n = 0, k = 0;
    bool firstK = false, lastK = false;  ///< the reduction starts / completes here
};

/// Which on-chip slot holds an operand block: a block already resident in a slot is reused,
/// a new one is loaded into the least recently used slot. Codegen and the cost model both use
/// it, so the estimate counts exactly the loads the command stream will make.
/// What an operand block holds: its matrix (batch offset) and its origin in it.
using BlockKey = std::array<int64_t, 3>;

class SlotCache {
public:
    explicit SlotCache(int slots) : keys_(static_cast<size_t>(slots)), lastUse_(keys_.size(), -1) {}

    struct Use {
        int slot = 0;
        bool load = false;  ///< the block must be loaded into the slot
    };
    Use use(const BlockKey& key);

private:
    std::vector<BlockKey> keys_;
    std::vector<int64_t> lastUse_;
    int64_t clock_ = 0;
};

/// Elements between an operand's stored rows, for a logical rows x cols operand (of a band's
/// rows in a banded one: the stride of the band holding column `col`).
inline int64_t storedRowStride(const GemmOperand& operand, int64_t rows, int64_t cols, int64_t col = 0) {
    if (operand.bandColumns != 0) return std::min(operand.bandColumns, cols - col / operand.bandColumns * operand.bandColumns);
    return operand.rowStride != 0 ? operand.rowStride : operand.transposed ? rows : cols;
}

/// The element offset, within its matrix, of an operand's logical element (row, col) of a
/// rows x cols matrix, as stored.
inline int64_t storedOffset(const GemmOperand& operand, int64_t rows, int64_t cols, int64_t row, int64_t col) {
    const int64_t stride = storedRowStride(operand, rows, cols, col);
    if (operand.transposed) return col * stride + row;
    if (operand.bandColumns == 0) return row * stride + col;
    const int64_t band0 = col / operand.bandColumns * operand.bandColumns;
    return band0 * rows + row * stride + (col - band0);
}

/// The content keys of a block's operands.
BlockKey gemmKeyA(const GemmProblem& problem, const GemmBlock& block);
BlockKey gemmKeyB(const GemmProblem& problem, const GemmBlock& block);

/// The part of a bias (or an epilogue step's vector operand) broadcast as `mode` that a result
/// block takes, as a DMA sees it: rows x rowElements elements.
struct BiasExtent {
    int64_t rows = 1, rowElements = 1;
};
BiasExtent gemmBiasExtent(BiasMode mode, const GemmBlock& block);
/// Whether a result block's accumulators start from its part of the bias (loaded into them,
/// a row bias repeated down the block's rows) instead of the vector unit adding it after the
/// array: a row or full bias that neither alpha nor beta scales, on a GEMM without a residual.
bool gemmBiasInAccumulator(const GemmProblem& problem);
/// The block as the array computes it: itself, or with m and n exchanged when the schedule
/// computes its transpose.
GemmBlock arrayBlock(const GemmBlock& block, const GemmSchedule& schedule);
/// The content key of the part of a bias broadcast as `mode` that a result block adds: blocks
/// in the same rows share a column bias, blocks in the same columns a row bias, and every block
/// a scalar one.
BlockKey gemmKeyBias(BiasMode mode, const GemmBlock& block);

/// One GEMM command's part of a block, offsets relative to the block's origin.
struct ArrayTile {
    int64_t m0 = 0, n0 = 0, k0 = 0, m = 0, n = 0, k = 0;
};
/// The tiles a block is cut into for the array, in issue order: weight stationary holds k x n
/// (k <= rows, n <= cols) and streams all m rows; output stationary holds m x n (m <= rows,
/// n <= cols) and streams all of k.
void forEachArrayTile(const TensorUnitConfig& tensor, const GemmBlock& block,
                      const std::function<void(const ArrayTile&)>& visit);

/// Visits the blocks of a schedule in execution order.
void forEachGemmBlock(const GemmProblem& problem, const GemmSchedule& schedule,
                      const std::function<void(const GemmBlock&)>& visit);

struct GemmTiles {
    GemmProblem problem;
    GemmSchedule schedule;
};

/// An op the NPU cannot run, as a CPU kernel: a CPU segment of its own between NPU segments,
/// its tensors copied from device memory and back by the host.
struct HostTiles {
    uint32_t opId = 0;
    cpu::HostKernel host;
    std::string reason;  ///< why the NPU does not run it
    /// The host's cost: its copies out of device memory and back (dmaCycles) and the kernel's
    /// operations at the host's speed (overheadCycles).
    CostEstimate estimate;
};

using TileOp = std::variant<GemmTiles, VectorTiles, HostTiles>;

/// Every NPU op of a graph, in execution order.
struct TileProgram {
    std::vector<TileOp> ops;
    /// Values that are another value's bytes under a new shape (a Reshape, Flatten, Squeeze,
    /// Unsqueeze or Identity), mapped to the value whose DRAM storage they share; their ops have
    /// no kernels.
    std::map<ValueId, ValueId> views;
};

uint32_t tileOpId(const TileOp& op);
/// Where each op (by its id) stands in the program.
std::map<uint32_t, size_t> opPositions(const TileProgram& program);

/// Text form (--emit=tile): one loop nest per op with its schedule and estimate.
std::string printTileProgram(const TileProgram& program, const Graph& graph);

}  // namespace npusim::compiler
