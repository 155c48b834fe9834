// Cost model formulas. They mirror the hardware model's timing without simulating it:
// contention between units and dispatch gaps between commands are not modelled; of the SRAM
// bank conflicts, those within a windowed vector command's strided rows are.
#include "compiler/cost/cost_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>

#include "arch/int_math.h"
#include "arch/tile_timing.h"
#include "compiler/cost/block_pipeline.h"
#include "compiler/tile/gemm_gather.h"

namespace npusim::compiler {

double CostModel::total(const std::array<double, kCostFeatures>& features) const {
    double sum = 0;
    for (size_t i = 0; i < kCostFeatures; ++i) sum += params_.weights[i] * features[i];
    return sum;
}

CostModel::ArrayTime CostModel::arrayBlockTime(DType dtype, const GemmBlock& block) const {
    // Tiles come in at most two sizes along the dimension the array's rows cut (k weight
    // stationary, m output stationary): full and tail; the sum over the block's tiles is taken
    // per size instead of per tile, each tile timed as the tensor unit times it.
    const TensorUnitConfig& t = config_.tensor;
    const bool weightStationary = t.dataflow == Dataflow::WeightStationary;
    const int64_t cut = weightStationary ? block.k : block.m;
    const int64_t fullTiles = cut / t.rows, tail = cut % t.rows;
    const int64_t perCut = ceilDiv(block.n, t.cols);  // tiles per row-tile, along n
    const auto tile = [&](int64_t rows) {
        const auto m = static_cast<uint64_t>(weightStationary ? block.m : rows);
        const auto k = static_cast<uint64_t>(weightStationary ? rows : block.k);
        return tilePhases(t, dtype, m, k, !block.firstK);
    };
    const TilePhases full = tile(t.rows), last = tile(tail ? tail : t.rows);
    const auto fullCount = static_cast<double>(fullTiles * perCut), tailCount = static_cast<double>(tail ? perCut : 0);
    const auto cycles = [](uint64_t value) { return static_cast<double>(value); };
    if (!t.doubleBuffered) {
        return {fullCount * cycles(full.preload + full.stream + full.latency) +
                    tailCount * cycles(last.preload + last.stream + last.latency),
                0, 0};
    }
    // Double-buffered: every stream, and each preload beyond the stream it hides behind.
    const auto excess = [&](const TilePhases& p) { return std::max(0.0, cycles(p.preload) - cycles(p.stream)); };
    const double occupancy =
        (fullCount + tailCount) * cycles(full.stream) + fullCount * excess(full) + tailCount * excess(last);
    const TilePhases& first = fullTiles ? full : last;
    return {occupancy, std::min(cycles(first.preload), cycles(first.stream)), cycles(last.latency)};
}

double CostModel::dmaCycles(uint64_t rows, uint64_t rowBytes, uint64_t strideBytes) const {
    const double share = channelShare(rows, rowBytes, strideBytes);
    if (rows == 1 || strideBytes == rowBytes) {  // one run
        rowBytes *= rows;
        rows = 1;
    }
    // The engine's channels each issue a burst per cycle and keep up to maxOutstanding in
    // flight; the DRAM moves the bytes at the bandwidth a DMA stream attains on the channels
    // its addresses reach, each of which serves a burst per cycle at most.
    const double channels = config_.dma.channels;
    const double burst = config_.dma.burstBytes;
    const double bursts = static_cast<double>(rows) * std::ceil(static_cast<double>(rowBytes) / burst);
    const double transfer = static_cast<double>(rows * rowBytes) / (dmaBytesPerCycle() * share);
    const double window =
        bursts * firstByteCycles() / (config_.dma.maxOutstanding * channels);
    const double issue = bursts * params_.burstCycles / channels;
    // Each DRAM channel the addresses reach serves a burst per cycle at most.
    const double served = bursts / std::max(1.0, share * config_.dram.channels);
    return std::max({transfer, window, issue, served});
}

double CostModel::firstByteCycles() const {
    // Streams mostly hit open rows: the controller's latency and a column access. Closing the
    // row after each access makes every burst activate its row first.
    const DramConfig& d = config_.dram;
    return d.latencyCycles + d.tCasCycles + (d.pagePolicy == PagePolicy::Closed ? d.tRcdCycles : 0);
}

double CostModel::channelShare(uint64_t rows, uint64_t rowBytes, uint64_t strideBytes) const {
    // Addresses interleave over the channels every channelInterleaveBytes: a run spreads over
    // them; rows whose stride is a multiple of the interleave start on the channels the
    // stride's residue reaches, each row covering the next few.
    const uint64_t c = config_.dram.channels, unit = DramConfig::channelInterleaveBytes;
    if (c <= 1) return 1.0;
    const uint64_t unitsPerRow = (rowBytes + unit - 1) / unit;
    uint64_t reached = c;
    if (rows == 1 || strideBytes == rowBytes) {
        reached = std::min(c, (rows * rowBytes + unit - 1) / unit);
    } else if (strideBytes != 0 && strideBytes % unit == 0) {
        const uint64_t g = std::gcd((strideBytes / unit) % c, c);
        reached = std::min(c, std::min(rows, c / g) * std::min(unitsPerRow, g));
    }
    return static_cast<double>(std::max<uint64_t>(reached, 1)) / static_cast<double>(c);
}

double CostModel::dmaBytesPerCycle() const { return config_.dram.bytesPerCycle * params_.dmaBandwidth; }

double CostModel::vectorCycles(isa::VectorOp op, int64_t elements) const {
    return config_.vector.pipelineDepth +
           static_cast<double>(ceilDiv(elements, config_.vector.lanes)) *
               config_.vector.opCycles[static_cast<size_t>(op)];
}

double CostModel::windowCommandCycles(isa::VectorOp op, const WindowCommand& c, uint64_t elementBytes) const {
    const auto span = static_cast<uint64_t>((c.cols - 1) * c.src0ColStride + 1) * elementBytes;
    const double read = sramReadCycles(static_cast<uint64_t>(c.src0) * elementBytes, static_cast<uint64_t>(c.rows), span,
                                       static_cast<uint64_t>(c.src0Stride) * elementBytes);
    return std::max(vectorCycles(op, c.rows * c.cols), config_.vector.pipelineDepth + read);
}

double CostModel::sramReadCycles(uint64_t offset, uint64_t rows, uint64_t rowBytes, uint64_t strideBytes) const {
    // A row's banks depend only on its start within the interleave period, so rows recur
    // every `cycle` rows: each of the first `cycle` counts for those it stands for.
    const MemoryConfig& sram = config_.sram;
    const uint64_t banks = sram.banks, width = sram.bankWidthBytes, period = sram.bankPeriod();
    const uint64_t cycle = rows == 1 ? 1 : period / std::gcd(strideBytes % period, period);
    std::vector<uint64_t> perBank(banks, 0);
    for (uint64_t r = 0; r < std::min(rows, cycle); ++r) {
        const uint64_t start = offset + r * strideBytes, repeats = (rows - r + cycle - 1) / cycle;
        const uint64_t first = start / width, chunks = (start + rowBytes - 1) / width - first + 1;
        for (uint64_t i = 0; i < std::min(chunks, banks); ++i) {
            perBank[(first + i) % banks] += repeats * (chunks / banks + (i < chunks % banks ? 1 : 0));
        }
    }
    const uint64_t busiest = *std::max_element(perBank.begin(), perBank.end());
    return static_cast<double>((busiest + sram.ports - 1) / sram.ports);
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
                const GemmBlock block = arrayBlock({0, 0, 0, 0, m.size, n.size, k.size, k.firstK, false}, s);
                const double count = static_cast<double>(p.batch * m.count * n.count * k.count);
                array += count * arrayBlockTime(p.operandType, block).occupancy;
                commands += count * static_cast<double>(ceilDiv(weightStationary ? block.k : block.m, config_.tensor.rows) *
                                                        ceilDiv(block.n, config_.tensor.cols));
            }
        }
    }
    return array + commandOverheadCycles(static_cast<uint64_t>(commands));
}

/// The last burst's SRAM read and write, after a move's issue.
constexpr double kMoveAccessCycles = 2;

GatherBlockCost CostModel::gatherBlockCost(const GemmProblem& p, const GemmBlock& block) const {
    // On-chip moves (from a resident source) take the engine's burst issue, not DRAM.
    const uint64_t elem = dtypeSize(p.operandType);
    GatherBlockCost cost;
    forEachGatherTransfer(p, block, [&](const GatherTransfer& g) {
        if (g.piece->copy.fill) return;
        ++cost.commands;
        if (resident(g.piece->source)) {  // an on-chip move, a strided run at any stride
            BlockTransfer move;
            move.planes = g.rows;
            move.dramPlaneStride = g.rowInStride;
            move.rowElements = g.length;
            move.elementStride = g.runInStride;
            // The block's moves run back to back: the last one's SRAM access once (below).
            cost.moves += moveIssueCycles(move, elem);
            return;
        }
        const auto elements = static_cast<uint64_t>(g.rows * g.length);
        const auto rows = static_cast<uint64_t>(g.rows), length = static_cast<uint64_t>(g.length);
        if (g.runInStride == 1) {
            cost.cycles += dmaCycles(rows, length * elem, 0);
        } else if (g.runInStride > 1 && g.runInStride <= maxElementStride(config_, elem, false)) {
            cost.cycles += stridedDmaCycles(rows, length, elem, static_cast<uint64_t>(g.runInStride) * elem, 0);
        } else {  // one element per DMA row
            cost.cycles += dmaCycles(elements, elem, 0);
        }
        cost.bytes += elements * elem;
    });
    if (cost.moves > 0) cost.moves += kMoveAccessCycles;
    return cost;
}

GatherBlockFills CostModel::gatherBlockFills(const GemmProblem& p, const GemmBlock& block) const {
    GatherBlockFills fills;
    forEachGatherTransfer(p, block, [&](const GatherTransfer& g) {
        if (!g.piece->copy.fill) return;
        fills.fills.push_back(gatherFill(g));
        fills.cycles += vectorCycles(isa::VectorOp::Fill, g.rows * g.length);
    });
    return fills;
}

CostEstimate CostModel::estimateGemm(const GemmProblem& p, const GemmSchedule& s, GatherCosts* gathers) const {
    CostEstimate e;
    const int slots = s.doubleBuffer ? 2 : 1;
    SlotCache aSlots(slots), bSlots(slots);
    const uint64_t elem = dtypeSize(p.operandType);
    // Per block: the DMA time of its loads, the units' time, and the DMA time after it.
    std::vector<std::pair<StageTimes, double>> blocks;
    double firstPreload = 0;  ///< the first block's, which no stream hides
    // Gathered B blocks: the copies of the blocks at the first two and last two column
    // positions are priced transfer by transfer (the operand's borders fall there); an interior
    // block's copies cost what the first interior block's at the same phase in the gather
    // period do (GatherCosts). Each block's fills are priced where the slot does not hold them
    // already (SlotFills).
    GatherCosts own;
    GatherCosts& known = gathers ? *gathers : own;
    const int64_t period = std::max<int64_t>(1, gatherPeriod(p));
    const auto gatherCost = [&](const GemmBlock& block) -> const GatherBlockCost& {
        const bool border = block.n0 < 2 * s.nBlock || block.n0 + block.n + 2 * s.nBlock > p.n;
        const std::array<int64_t, 5> key = {block.k0, block.k, block.n, border ? block.n0 : block.n0 % period, border};
        auto it = known.copies.find(key);
        if (it == known.copies.end()) it = known.copies.emplace(key, gatherBlockCost(p, block)).first;
        return it->second;
    };
    const auto gatherFills = [&](const GemmBlock& block) -> const GatherBlockFills& {
        const std::array<int64_t, 4> key = {block.k0, block.k, block.n0, block.n};
        auto it = known.fills.find(key);
        if (it == known.fills.end()) it = known.fills.emplace(key, gatherBlockFills(p, block)).first;
        return it->second;
    };
    // A block of a rows x cols operand matrix: a constant is priced as stored in bands of the
    // schedule's block width (pack-constant-operands), one run per block.
    const auto operandLoad = [&](const GemmOperand& operand, int64_t rows, int64_t cols, int64_t col0, int64_t blockRows,
                                 int64_t blockCols) {
        const auto rowBytes = static_cast<uint64_t>(operand.transposed ? blockRows : blockCols) * elem;
        if (operand.transposed) {
            return dmaCycles(static_cast<uint64_t>(blockCols), rowBytes,
                             static_cast<uint64_t>(storedRowStride(operand, rows, cols)) * elem);
        }
        const bool packed = operand.packable && operand.rowStride == 0 && operand.gather.empty();
        const uint64_t stride = packed ? rowBytes : static_cast<uint64_t>(storedRowStride(operand, rows, cols, col0)) * elem;
        return dmaCycles(static_cast<uint64_t>(blockRows), rowBytes, stride);
    };
    SlotCache biasSlots(slots);
    const std::vector<const EpilogueStep*> operandSteps = epilogueOperandSteps(p);
    std::vector<SlotCache> operandSlots(operandSteps.size(), SlotCache(slots));
    double tensorBytes = 0;
    uint64_t macs = 0;
    // The part of a bias-like vector a block reads (elements of `bytes`), loaded by the store
    // engine after the array.
    const auto vectorLoad = [&](BiasMode mode, const GemmBlock& block, StageTimes& t, uint64_t bytes = 4) {
        const BiasExtent part = gemmBiasExtent(mode, block);
        const auto row = static_cast<uint64_t>(part.rowElements) * bytes;
        t.stores += dmaCycles(static_cast<uint64_t>(part.rows), row, part.rowElements == p.n ? row : 0);
        e.dramBytes += static_cast<uint64_t>(part.rows * part.rowElements) * bytes;
        ++e.commands;
    };
    SlotFills bFills(static_cast<size_t>(slots));
    forEachGemmBlock(p, s, [&](const GemmBlock& block) {
        StageTimes t;
        double moves = 0;  ///< on-chip gather moves
        const uint64_t bytesBefore = e.dramBytes;
        if (aSlots.use(gemmKeyA(p, block)).load) {
            t.loads += operandLoad(p.a, p.m, p.k, block.k0, block.m, block.k);
            e.dramBytes += static_cast<uint64_t>(block.m * block.k) * elem;
            ++e.commands;
        }
        if (const SlotCache::Use use = bSlots.use(gemmKeyB(p, block)); use.load) {
            if (p.b.gather.empty()) {
                t.loads += operandLoad(p.b, p.k, p.n, block.n0, block.k, block.n);
                e.dramBytes += static_cast<uint64_t>(block.k * block.n) * elem;
                ++e.commands;
            } else {  // gathered: a DMA or a fill per transfer
                const GatherBlockCost& cost = gatherCost(block);
                t.loads += cost.cycles;
                moves += cost.moves;
                e.dramBytes += cost.bytes;
                e.commands += cost.commands;
                const GatherBlockFills& fills = gatherFills(block);
                if (bFills.needed(static_cast<size_t>(use.slot), fills.fills)) {
                    t.loads += fills.cycles;
                    e.commands += fills.fills.size();
                }
            }
        }
        if (block.firstK && p.residual != kNoValue) {  // the residual's part, into the accumulator slot
            t.loads += dmaCycles(static_cast<uint64_t>(block.m), static_cast<uint64_t>(block.n) * 4,
                                 static_cast<uint64_t>(p.n) * 4);
            e.dramBytes += static_cast<uint64_t>(block.m * block.n) * 4;
            ++e.commands;
        }
        if (block.firstK && gemmBiasInAccumulator(p)) {  // the bias's part, into the accumulator slot
            // A row bias is read once and written to every row of the slot, at the
            // accumulator memory's bandwidth.
            const bool row = p.biasMode == BiasMode::Row;
            const auto slotBytes = static_cast<double>(block.m * block.n * 4);
            t.loads += dmaCycles(row ? 1 : static_cast<uint64_t>(block.m), static_cast<uint64_t>(block.n) * 4,
                                 static_cast<uint64_t>(p.n) * 4) +
                       (row ? slotBytes / static_cast<double>(config_.accumulator.bankPeriod()) : 0.0);
            e.dramBytes += static_cast<uint64_t>((row ? 1 : block.m) * block.n) * 4;
            ++e.commands;
        }
        // The engine pipelines a block's transfers: the first byte's latency once; its on-chip
        // moves take the burst issue the DRAM transfers leave.
        if (e.dramBytes > bytesBefore) t.loadLatency = firstByteCycles();
        t.loadTransfer = static_cast<double>(e.dramBytes - bytesBefore) / dmaBytesPerCycle();
        const double dramIssue = static_cast<double>(e.dramBytes - bytesBefore) / config_.dma.burstBytes *
                                 params_.burstCycles / config_.dma.channels;
        t.loads = std::max(t.loads, dramIssue + moves);
        const uint64_t loadedBytes = e.dramBytes;
        const GemmBlock onArray = arrayBlock(block, s);
        const ArrayTime array = arrayBlockTime(p.operandType, onArray);
        // The array's SRAM traffic as the tensor unit counts it: each tile streams its rows of A
        // and holds its block of B, and its results pass through the accumulator memory.
        const auto kTiles = static_cast<double>(ceilDiv(onArray.k, config_.tensor.rows));
        const auto nTiles = static_cast<double>(ceilDiv(onArray.n, config_.tensor.cols));
        const auto m = static_cast<double>(onArray.m), n = static_cast<double>(onArray.n), k = static_cast<double>(onArray.k);
        tensorBytes += (m * k * nTiles + k * n) * static_cast<double>(elem) + m * n * 4 * kTiles;
        macs += static_cast<uint64_t>(onArray.m * onArray.n * onArray.k);
        e.tensorCycles += array.occupancy;
        t.compute = array.occupancy;
        t.latency = array.latency;
        if (blocks.empty()) firstPreload = array.firstPreload;
        const int64_t cut = config_.tensor.dataflow == Dataflow::WeightStationary ? onArray.k : onArray.m;
        e.commands += static_cast<uint64_t>(ceilDiv(cut, config_.tensor.rows) * ceilDiv(onArray.n, config_.tensor.cols));
        if (block.lastK) {
            const int64_t elements = block.m * block.n;
            if (p.alpha != 1.0f) {
                t.epilogue += vectorCycles(isa::VectorOp::Mul, elements);
                ++e.commands;
            }
            for (const EpilogueStep& step : p.epilogue) {
                t.epilogue += vectorCycles(step.op, elements);
                ++e.commands;
            }
            if (p.bias != kNoValue && !gemmBiasInAccumulator(p)) {  // the add, and the load unless a slot holds the bias
                t.epilogue += vectorCycles(isa::VectorOp::Add, elements);
                ++e.commands;
                if (biasSlots.use(gemmKeyBias(p.biasMode, block)).load) vectorLoad(p.biasMode, block, t);
            }
            for (size_t i = 0; i < operandSteps.size(); ++i) {
                const EpilogueStep& step = *operandSteps[i];
                if (!operandSlots[i].use(gemmKeyBias(step.operandMode, block)).load) continue;
                vectorLoad(step.operandMode, block, t, dtypeSize(step.operandType));
                if (step.operandType != DType::Fp32) {  // dequantised where it lands
                    const BiasExtent part = gemmBiasExtent(step.operandMode, block);
                    t.epilogue += vectorCycles(isa::VectorOp::Dequantize, part.rows * part.rowElements);
                    ++e.commands;
                }
            }
            if (epilogueResult(p) != p.outputType) {  // rounded to the stored type in place
                t.epilogue += vectorCycles(isa::VectorOp::Cast, elements);
                ++e.commands;
            }
            const uint64_t outputBytes = dtypeSize(p.outputType);
            t.storeLatency = firstByteCycles();
            t.stores += dmaCycles(static_cast<uint64_t>(block.m), static_cast<uint64_t>(block.n) * outputBytes,
                                  static_cast<uint64_t>(p.n) * outputBytes);
            e.dramBytes += static_cast<uint64_t>(elements) * outputBytes;
            ++e.commands;
        }
        t.storeTransfer = static_cast<double>(e.dramBytes - loadedBytes) / dmaBytesPerCycle();
        e.vectorCycles += t.epilogue;
        e.dmaCycles += t.loadLatency + t.loads + t.storeLatency + t.stores;
        blocks.push_back({t, 1.0});
    });
    addPipeline(e, blocks, s.doubleBuffer);
    feature(e, CostFeature::Exposed) += firstPreload;
    e.commands += e.commands / 2;  // semaphore commands, about one per two others
    e.overheadCycles = commandOverheadCycles(e.commands);
    feature(e, CostFeature::Dispatch) = e.overheadCycles;
    feature(e, CostFeature::Blocks) = static_cast<double>(blocks.size());
    feature(e, CostFeature::Op) = 1;
    e.totalCycles = total(e.features);
    e.energyPj = energyPj(e, macs, p.operandType, tensorBytes);
    return e;
}

double CostModel::stridedDmaCycles(uint64_t rows, uint64_t elements, uint64_t elementBytes, uint64_t elementStride,
                                   uint64_t rowStrideBytes) const {
    if (elementStride >= config_.dma.burstBytes) return dmaCycles(rows * elements, elementBytes, elementStride);
    return dmaCycles(rows, (elements - 1) * elementStride + elementBytes, rowStrideBytes);
}

double CostModel::transferCycles(const BlockTransfer& t, uint64_t elementBytes) const {
    if (t.elementStride != 1) {
        return stridedDmaCycles(static_cast<uint64_t>(t.planes * t.rows), static_cast<uint64_t>(t.rowElements),
                                elementBytes, static_cast<uint64_t>(t.elementStride) * elementBytes,
                                static_cast<uint64_t>(t.dramRowStride) * elementBytes);
    }
    const bool rowsAdjacent = t.rows == 1 || t.dramRowStride == t.rowElements;
    const bool planesAdjacent = t.planes == 1 || t.dramPlaneStride == t.rows * t.rowElements;
    const auto rowBytes = static_cast<uint64_t>(t.rowElements) * elementBytes;
    const auto rows = static_cast<uint64_t>(t.planes * t.rows);
    if (t.rows > 1 && t.dramRowStride == 0) {  // one row repeated: read once per plane
        return dmaCycles(static_cast<uint64_t>(t.planes), rowBytes, static_cast<uint64_t>(t.dramPlaneStride) * elementBytes);
    }
    if (rowsAdjacent && planesAdjacent) return dmaCycles(rows, rowBytes, rowBytes);
    if (rowsAdjacent) {  // each plane is one run
        return dmaCycles(static_cast<uint64_t>(t.planes), rowBytes * static_cast<uint64_t>(t.rows),
                         static_cast<uint64_t>(t.dramPlaneStride) * elementBytes);
    }
    return dmaCycles(rows, rowBytes, static_cast<uint64_t>(t.dramRowStride) * elementBytes);
}

double CostModel::moveCycles(const BlockTransfer& t, uint64_t elementBytes) const {
    return kMoveAccessCycles + moveIssueCycles(t, elementBytes);
}

double CostModel::moveIssueCycles(const BlockTransfer& t, uint64_t elementBytes) const {
    // Bursts cover runs of the resident tensor's layout, as in DRAM; the channels each issue a
    // burst per cycle, and a burst reads and writes SRAM.
    const bool rowsAdjacent = t.rows == 1 || t.dramRowStride == t.rowElements;
    const bool planesAdjacent = t.planes == 1 || t.dramPlaneStride == t.rows * t.rowElements;
    const double rowBytes = static_cast<double>(t.rowElements * static_cast<int64_t>(elementBytes));
    const double burst = config_.dma.burstBytes;
    const auto strideBytes = static_cast<double>(t.elementStride * static_cast<int64_t>(elementBytes));
    double bursts = 0;
    if (t.elementStride != 1) {  // a strided run: a burst per element, or per burst of its span
        const double perRow = strideBytes >= burst ? static_cast<double>(t.rowElements)
                                                   : std::ceil(static_cast<double>(t.rowSpan()) * static_cast<double>(elementBytes) / burst);
        bursts = static_cast<double>(t.planes * t.rows) * perRow;
    } else if (rowsAdjacent && planesAdjacent) {
        bursts = std::ceil(static_cast<double>(t.planes * t.rows) * rowBytes / burst);
    } else if (rowsAdjacent) {
        bursts = static_cast<double>(t.planes) * std::ceil(static_cast<double>(t.rows) * rowBytes / burst);
    } else {
        bursts = static_cast<double>(t.planes * t.rows) * std::ceil(rowBytes / burst);
    }
    return bursts * params_.burstCycles / config_.dma.channels;
}

double CostModel::indexedCycles(const BlockTransfer& t, uint64_t elementBytes, uint64_t indexBytes, bool onChip) const {
    const double list = firstByteCycles() + dmaCycles(1, static_cast<uint64_t>(t.rows) * indexBytes, 0);
    // The rows lie wherever the indices put them: no two form one run.
    BlockTransfer runs = t;
    runs.dramRowStride = runs.dramPlaneStride = 0;
    const auto rowBytes = static_cast<uint64_t>(t.rowElements) * elementBytes;
    return list + (onChip ? moveCycles(runs, elementBytes) : dmaCycles(static_cast<uint64_t>(t.planes * t.rows), rowBytes, 0));
}

namespace {

/// A vector kernel's blocks: at most two sizes (full and tail along blockDim), whose transfers
/// and steps have the same shapes in every block of a size.
struct VectorBlocks {
    struct Size {
        StageTimes stages;
        uint64_t bytes = 0, commands = 0;
        double count = 0;
    };
    Size full, tail;
    std::vector<std::pair<StageTimes, double>> runs() const { return {{full.stages, full.count}, {tail.stages, tail.count}}; }
};

VectorBlocks vectorBlocks(const CostModel& model, const VectorProblem& p, const VectorSchedule& s) {
    auto sizeOf = [&](const VectorBlock& block, int64_t count) {
        VectorBlocks::Size t;
        t.count = static_cast<double>(count);
        // A stage's DRAM transfers pipeline in their engine: the first byte's latency once.
        bool loadsDram = false, storesDram = false;
        auto transfers = [&](const VectorLoad& access, DType dtype, double& cycles, double& transfer, bool& dram) {
            const bool onChip = model.resident(access.view.value);
            const int64_t maxStride = maxElementStride(model.config(), dtypeSize(dtype), onChip);
            for (const BlockTransfer& b : loadTransfers(p, s, block, access, maxStride)) {
                ++t.commands;
                // An indexed load reads its index list from DRAM wherever its table is.
                const uint64_t indexBytes = access.indices ? access.indices->bytes : 0;
                if (indexBytes != 0) {
                    const auto listBytes = static_cast<uint64_t>(b.rows) * indexBytes;
                    transfer += static_cast<double>(listBytes) / model.dmaBytesPerCycle();
                    t.bytes += listBytes;
                    dram = true;
                }
                if (onChip) {
                    cycles += indexBytes != 0 ? model.indexedCycles(b, dtypeSize(dtype), indexBytes, true)
                                              : model.moveCycles(b, dtypeSize(dtype));
                    continue;
                }
                dram = true;
                cycles += indexBytes != 0 ? model.indexedCycles(b, dtypeSize(dtype), indexBytes, false)
                                          : model.transferCycles(b, dtypeSize(dtype));
                const uint64_t bytes = static_cast<uint64_t>(b.planes * b.rows * b.rowElements) * dtypeSize(dtype);
                transfer += static_cast<double>(bytes) / model.dmaBytesPerCycle();
                t.bytes += bytes;
            }
        };
        for (const VectorLoad& load : p.loads) {
            transfers(load, p.buffers[load.buffer].dtype, t.stages.loads, t.stages.loadTransfer, loadsDram);
        }
        if (loadsDram) t.stages.loadLatency = model.firstByteCycles();
        for (const VectorStore& store : p.stores) {
            transfers({store.view, store.buffer, {}, {}}, p.buffers[store.buffer].dtype, t.stages.stores, t.stages.storeTransfer,
                      storesDram);
            t.stages.inPlace |= std::any_of(p.loads.begin(), p.loads.end(),
                                            [&](const VectorLoad& load) { return load.buffer == store.buffer; });
        }
        if (storesDram) t.stages.storeLatency = model.firstByteCycles();
        for (const VectorStep& step : p.steps) {
            if (!step.window) {
                t.stages.compute += model.vectorCycles(step.op, bufferElements(p, p.buffers[step.src0], block.rows));
                ++t.commands;
                continue;
            }
            const uint64_t elementBytes = dtypeSize(p.buffers[step.src0].dtype);
            for (const WindowCommand& c : windowCommands(p, step, block.rows)) {
                t.stages.compute += model.windowCommandCycles(step.op, c, elementBytes);
                ++t.commands;
            }
        }
        return t;
    };
    VectorBlocks blocks;
    bool first = true;
    forEachVectorBlockSize(p, s, [&](const VectorBlock& block, int64_t count) {
        (first ? blocks.full : blocks.tail) = sizeOf(block, count);
        first = false;
    });
    // Plane buffers' padding, written once per slot the first blocks use.
    const double fills = std::min(s.doubleBuffer ? 2.0 : 1.0, blocks.full.count + blocks.tail.count);
    for (const VectorLoad& load : p.loads) {
        if (!load.plane || blocks.full.count == 0) continue;
        const int64_t elements = bufferElements(p, p.buffers[load.buffer], blockCapacityRows(p, s));
        blocks.full.stages.compute += fills * model.vectorCycles(isa::VectorOp::Fill, elements) / blocks.full.count;
    }
    return blocks;
}

}  // namespace

CostEstimate CostModel::estimateVector(const VectorProblem& p, const VectorSchedule& s) const {
    const VectorBlocks b = vectorBlocks(*this, p, s);
    CostEstimate e;
    for (const VectorBlocks::Size* size : {&b.full, &b.tail}) {
        e.vectorCycles += size->count * size->stages.compute;
        const StageTimes& stages = size->stages;
        e.dmaCycles += size->count * (stages.loadLatency + stages.loads + stages.storeLatency + stages.stores);
        e.dramBytes += static_cast<uint64_t>(size->count) * size->bytes;
        e.commands += static_cast<uint64_t>(size->count) * size->commands;
    }
    e.commands += e.commands / 2;  // semaphore commands, about one per two others
    e.overheadCycles = commandOverheadCycles(e.commands);
    const std::vector<std::pair<StageTimes, double>> runs = b.runs();
    addPipeline(e, runs, s.doubleBuffer);  // e held no pipeline time before
    double pipeline = 0;
    for (CostFeature f : {CostFeature::Compute, CostFeature::Memory, CostFeature::Transfer, CostFeature::Exposed}) {
        pipeline += feature(e, f);
    }
    feature(e, CostFeature::Memory) += slotChainExcess(runs, s.doubleBuffer, pipeline);
    feature(e, CostFeature::Dispatch) = e.overheadCycles;
    feature(e, CostFeature::Blocks) = b.full.count + b.tail.count;
    feature(e, CostFeature::Op) = 1;
    e.totalCycles = total(e.features);
    e.energyPj = energyPj(e, 0, DType::Fp32, 0);
    return e;
}

CostEstimate CostModel::estimateTileOp(const TileOp& op) const {
    if (const auto* gemm = std::get_if<GemmTiles>(&op)) return gemm->schedule.estimate;
    if (const auto* host = std::get_if<HostTiles>(&op)) return host->estimate;
    // An op's kernels start their buffers at the same offset: each waits for the previous
    // one's stores, so their times add up.
    CostEstimate sum;
    for (const VectorKernel& kernel : std::get<VectorTiles>(op).kernels) sum += estimateVector(kernel.problem, kernel.schedule);
    return sum;
}

}  // namespace npusim::compiler
