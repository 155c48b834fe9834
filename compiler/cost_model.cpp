// Cost model formulas. They mirror the hardware model's timing without simulating it:
// contention, bank conflicts and dispatch gaps between commands are not modelled.
#include "compiler/cost_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "compiler/tile/gemm_gather.h"

namespace npusim::compiler {
namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

double CostModel::arrayBlockCycles(DType dtype, const GemmBlock& block) const {
    // Tiles come in at most two sizes along each cut dimension (full and tail), so the sum
    // over the block's tiles is taken per size instead of per tile.
    const TensorUnitConfig& t = config_.tensor;
    const double cyclesPerRow = t.cyclesPerRow.at(dtype);
    const double skew = (t.rows - 1) + (t.cols - 1);
    const bool weightStationary = t.dataflow == Dataflow::WeightStationary;
    // The dimension cut by the array's rows: k (weight stationary) or m (output stationary).
    const int64_t cut = weightStationary ? block.k : block.m;
    const int64_t fullTiles = cut / t.rows, tail = cut % t.rows;
    const int64_t perCut = ceilDiv(block.n, t.cols);  // tiles per row-tile, along n
    // Weight stationary preloads the tile's k weight rows; output stationary its m rows of
    // partial sums, when the block accumulates onto earlier k blocks.
    const auto preloadOf = [&](int64_t rows) -> double {
        return weightStationary || !block.firstK ? static_cast<double>(rows) : 0.0;
    };
    const double stream = (weightStationary ? block.m : block.k) * cyclesPerRow;
    const double lastRows = static_cast<double>(tail ? tail : t.rows);
    const double latency = weightStationary ? skew : skew + lastRows;
    const int64_t tiles = (fullTiles + (tail ? 1 : 0)) * perCut;
    if (!t.doubleBuffered) {
        double total = 0;
        total += static_cast<double>(fullTiles * perCut) * (stream + (weightStationary ? skew : skew + t.rows));
        if (tail) total += static_cast<double>(perCut) * (stream + latency);
        total += static_cast<double>(fullTiles * perCut) * preloadOf(t.rows) + static_cast<double>(perCut) * (tail ? preloadOf(tail) : 0.0);
        return total;
    }
    // Double-buffered: the first tile's preload, every stream, each later preload beyond the
    // stream it hides behind, and one fill and drain.
    const double firstPreload = preloadOf(fullTiles ? t.rows : tail);
    double hiddenExcess = 0;
    if (fullTiles) hiddenExcess += static_cast<double>(fullTiles * perCut - 1) * std::max(0.0, preloadOf(t.rows) - stream);
    if (tail) hiddenExcess += static_cast<double>(perCut - (fullTiles ? 0 : 1)) * std::max(0.0, preloadOf(tail) - stream);
    return firstPreload + static_cast<double>(tiles) * stream + hiddenExcess + latency;
}

double CostModel::dmaCycles(uint64_t rows, uint64_t rowBytes, bool contiguous) const {
    if (contiguous) {
        rowBytes *= rows;
        rows = 1;
    }
    const double burst = config_.dma.burstBytes;
    const double bursts = static_cast<double>(rows) * std::ceil(static_cast<double>(rowBytes) / burst);
    const double transfer = static_cast<double>(rows * rowBytes) / config_.dram.bytesPerCycle;
    const double window = bursts * (config_.dram.latencyCycles + config_.dram.tCasCycles) / config_.dma.maxOutstanding;
    // Streams mostly hit open rows: controller latency and a column access.
    const double latency = config_.dram.latencyCycles + config_.dram.tCasCycles;
    return latency + std::max({transfer, window, bursts});
}

double CostModel::vectorCycles(isa::VectorOp op, int64_t elements) const {
    return config_.vector.pipelineDepth +
           static_cast<double>(ceilDiv(elements, config_.vector.lanes)) *
               config_.vector.opCycles[static_cast<size_t>(op)];
}

double CostModel::commandOverheadCycles(uint64_t commands) const {
    const double fetch = static_cast<double>(commands * isa::kCommandBytes) / config_.dram.bytesPerCycle;
    return fetch + static_cast<double>(commands) * config_.controlCore.validateCycles;
}

double CostModel::gemmLowerBound(const GemmProblem& p, const GemmSchedule& s) const {
    // Each dimension has full blocks and at most one tail; along k the first block starts the
    // reduction (it matters to output-stationary preloads).
    struct Extent {
        int64_t size, count;
        bool firstK;
    };
    auto extents = [](int64_t total, int64_t block, bool reduction) {
        std::vector<Extent> out;
        const int64_t full = total / block, tail = total % block;
        if (reduction) {
            if (full > 0) out.push_back({block, 1, true});
            if (full > 1) out.push_back({block, full - 1, false});
            if (tail > 0) out.push_back({tail, 1, full == 0});
        } else {
            if (full > 0) out.push_back({block, full, true});
            if (tail > 0) out.push_back({tail, 1, true});
        }
        return out;
    };
    const bool weightStationary = config_.tensor.dataflow == Dataflow::WeightStationary;
    double array = 0, commands = 0;
    for (const Extent& m : extents(p.m, s.mBlock, false)) {
        for (const Extent& n : extents(p.n, s.nBlock, false)) {
            for (const Extent& k : extents(p.k, s.kBlock, true)) {
                const GemmBlock block{0, 0, 0, 0, m.size, n.size, k.size, k.firstK, false};
                const double count = static_cast<double>(p.batch * m.count * n.count * k.count);
                array += count * arrayBlockCycles(p.operandType, block);
                commands += count * static_cast<double>(ceilDiv(weightStationary ? k.size : m.size, config_.tensor.rows) *
                                                        ceilDiv(n.size, config_.tensor.cols));
            }
        }
    }
    return array + commandOverheadCycles(static_cast<uint64_t>(commands));
}

CostEstimate CostModel::estimateGemm(const GemmProblem& p, const GemmSchedule& s) const {
    CostEstimate e;
    const int slots = s.doubleBuffer ? 2 : 1;
    SlotCache aSlots(slots), bSlots(slots);
    const uint64_t elem = dtypeSize(p.operandType);
    // Per block: the DMA time of its loads, the units' time, and the DMA time after it.
    struct BlockTime {
        double loads = 0, compute = 0, after = 0;
    };
    std::vector<BlockTime> blocks;
    // Gathered B blocks: the blocks at the first two and last two column positions are priced
    // transfer by transfer (the operand's borders fall there); the interior blocks of a row
    // band cost what its first interior block does.
    struct GatherCost {
        double cycles = 0;
        uint64_t bytes = 0, commands = 0;
    };
    std::map<std::array<int64_t, 3>, GatherCost> interior;
    const auto gatherCost = [&](const GemmBlock& block) {
        const bool border = block.n0 < 2 * s.nBlock || block.n0 + block.n + 2 * s.nBlock > p.n;
        const std::array<int64_t, 3> key = {block.k0, block.k, block.n};
        if (!border) {
            if (const auto it = interior.find(key); it != interior.end()) return it->second;
        }
        GatherCost cost;
        forEachGatherTransfer(p, block, [&](const GatherTransfer& g) {
            const auto elements = static_cast<uint64_t>(g.rows * g.length);
            if (g.piece->copy.fill) {
                cost.cycles += vectorCycles(isa::VectorOp::Fill, static_cast<int64_t>(elements));
            } else {
                cost.cycles += g.runInStride == 1
                                   ? dmaCycles(static_cast<uint64_t>(g.rows), static_cast<uint64_t>(g.length) * elem)
                                   : dmaCycles(elements, elem);
                cost.bytes += elements * elem;
            }
            ++cost.commands;
        });
        if (!border) interior.emplace(key, cost);
        return cost;
    };
    forEachGemmBlock(p, s, [&](const GemmBlock& block) {
        BlockTime t;
        if (aSlots.use(gemmKeyA(p, block)).load) {
            t.loads += p.a.transposed ? dmaCycles(block.k, block.m * elem, block.m == p.m)
                                      : dmaCycles(block.m, block.k * elem, block.k == p.k);
            e.dramBytes += static_cast<uint64_t>(block.m * block.k) * elem;
            ++e.commands;
        }
        if (bSlots.use(gemmKeyB(p, block)).load) {
            if (p.b.gather.empty()) {
                t.loads += p.b.transposed ? dmaCycles(block.n, block.k * elem, block.k == p.k)
                                          : dmaCycles(block.k, block.n * elem, block.n == p.n);
                e.dramBytes += static_cast<uint64_t>(block.k * block.n) * elem;
                ++e.commands;
            } else {  // gathered: a DMA or a fill per transfer
                const GatherCost cost = gatherCost(block);
                t.loads += cost.cycles;
                e.dramBytes += cost.bytes;
                e.commands += cost.commands;
            }
        }
        const double array = arrayBlockCycles(p.operandType, block);
        e.tensorCycles += array;
        t.compute = array;
        const int64_t cut = config_.tensor.dataflow == Dataflow::WeightStationary ? block.k : block.m;
        e.commands += static_cast<uint64_t>(ceilDiv(cut, config_.tensor.rows) * ceilDiv(block.n, config_.tensor.cols));
        if (block.lastK) {
            const int64_t elements = block.m * block.n;
            if (p.alpha != 1.0f) {
                t.compute += vectorCycles(isa::VectorOp::Mul, elements);
                ++e.commands;
            }
            for (const EpilogueStep& step : p.epilogue) {
                t.compute += vectorCycles(step.op, elements);
                ++e.commands;
            }
            if (p.bias != kNoValue) {
                t.compute += vectorCycles(isa::VectorOp::Add, elements);
                const BiasExtent bias = gemmBiasExtent(p, block);
                t.after += dmaCycles(static_cast<uint64_t>(bias.rows),
                                     static_cast<uint64_t>(bias.rowElements) * 4, bias.rowElements == p.n);
                e.dramBytes += static_cast<uint64_t>(bias.rows * bias.rowElements) * 4;
                e.commands += 2;
            }
            t.after += dmaCycles(static_cast<uint64_t>(block.m), static_cast<uint64_t>(block.n) * 4, block.n == p.n);
            e.dramBytes += static_cast<uint64_t>(elements) * 4;
            ++e.commands;
        }
        e.vectorCycles += t.compute - array;
        e.dmaCycles += t.loads + t.after;
        blocks.push_back(t);
    });
    // Double-buffered, the stream loads one block ahead: while block i computes, the DMA
    // engines store what came before and load block i+1. Single-buffered, nothing overlaps.
    double steady = 0;
    for (size_t i = 0; i < blocks.size(); ++i) {
        if (!s.doubleBuffer) {
            steady += blocks[i].loads + blocks[i].compute + blocks[i].after;
            continue;
        }
        const double next = i + 1 < blocks.size() ? blocks[i + 1].loads : 0;
        const double before = i > 0 ? blocks[i - 1].after : 0;
        steady += std::max(blocks[i].compute, next + before);
    }
    if (s.doubleBuffer && !blocks.empty()) steady += blocks.front().loads + blocks.back().after;
    e.commands += e.commands / 2;  // semaphore commands, about one per two others
    e.overheadCycles = commandOverheadCycles(e.commands);
    e.totalCycles = steady + e.overheadCycles;
    return e;
}

double CostModel::transferCycles(const BlockTransfer& t, uint64_t elementBytes) const {
    const bool rowsAdjacent = t.rows == 1 || t.dramRowStride == t.rowElements;
    const bool planesAdjacent = t.planes == 1 || t.dramPlaneStride == t.rows * t.rowElements;
    return dmaCycles(static_cast<uint64_t>(t.planes * t.rows),
                     static_cast<uint64_t>(t.rowElements) * elementBytes, rowsAdjacent && planesAdjacent);
}

CostEstimate CostModel::estimateVector(const VectorProblem& p, const VectorSchedule& s) const {
    // Blocks come in at most two sizes (full and tail along blockDim); transfers and steps
    // have the same shapes in every block of a size.
    struct BlockTime {
        double loads = 0, compute = 0, stores = 0;
        uint64_t bytes = 0, commands = 0;
    };
    auto blockTime = [&](const VectorBlock& block) {
        BlockTime t;
        auto transfers = [&](const TensorView& view, BufferExtent extent, DType dtype, double& cycles) {
            for (const BlockTransfer& transfer : blockTransfers(p, s, block, view, extent)) {
                cycles += transferCycles(transfer, dtypeSize(dtype));
                t.bytes += static_cast<uint64_t>(transfer.planes * transfer.rows * transfer.rowElements) * dtypeSize(dtype);
                ++t.commands;
            }
        };
        for (const VectorLoad& load : p.loads) {
            const VectorBuffer& buffer = p.buffers[load.buffer];
            transfers(load.view, buffer.extent, buffer.dtype, t.loads);
        }
        for (const VectorStore& store : p.stores) {
            const VectorBuffer& buffer = p.buffers[store.buffer];
            transfers(store.view, buffer.extent, buffer.dtype, t.stores);
        }
        for (const VectorStep& step : p.steps) {
            t.compute += vectorCycles(step.op, bufferElements(p, p.buffers[step.src0].extent, block.rows));
            ++t.commands;
        }
        return t;
    };
    int64_t blocks = 0, tailBlocks = 0;
    VectorBlock full, tail;
    forEachVectorBlockSize(p, s, [&](const VectorBlock& block, int64_t count) {
        if (blocks == 0) {
            full = block;
            blocks = count;
        } else {
            tail = block;
            tailBlocks = count;
        }
    });
    const BlockTime f = blockTime(full);
    const BlockTime t = tailBlocks ? blockTime(tail) : BlockTime{};
    const auto nf = static_cast<double>(blocks), nt = static_cast<double>(tailBlocks);
    CostEstimate e;
    e.vectorCycles = nf * f.compute + nt * t.compute;
    e.dmaCycles = nf * (f.loads + f.stores) + nt * (t.loads + t.stores);
    e.dramBytes = static_cast<uint64_t>(blocks) * f.bytes + static_cast<uint64_t>(tailBlocks) * t.bytes;
    e.commands = static_cast<uint64_t>(blocks) * f.commands + static_cast<uint64_t>(tailBlocks) * t.commands;
    e.commands += e.commands / 2;  // semaphore commands, about one per two others
    e.overheadCycles = commandOverheadCycles(e.commands);
    // Double-buffered, a block's loads and the previous block's stores run while it computes;
    // the first loads and the last stores are exposed.
    const double steady = s.doubleBuffer
                              ? nf * std::max(f.compute, f.loads + f.stores) +
                                    nt * std::max(t.compute, t.loads + t.stores) + f.loads + f.stores
                              : e.vectorCycles + e.dmaCycles;
    e.totalCycles = steady + e.overheadCycles;
    return e;
}

}  // namespace npusim::compiler
