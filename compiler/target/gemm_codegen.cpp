// GEMM code generation: per block, load the A and B blocks that are not resident, run the
// array tiles on the tensor unit into an accumulator slot, and after the last K block apply
// alpha and the bias on the vector unit and store the result.
#include <algorithm>
#include <bit>
#include <stdexcept>

#include "compiler/target/command_builder.h"
#include "compiler/target/op_codegen.h"
#include "compiler/tile/gemm_gather.h"
#include "compiler/tile/vector_ir.h"

namespace npusim::compiler {
namespace {

class GemmEmitter {
public:
    GemmEmitter(const GemmTiles& tiles, const MemoryPlan& plan, const ArchConfig& config, SyncPlanner& out)
        : p_(tiles.problem),
          s_(tiles.schedule),
          plan_(plan),
          config_(config),
          out_(out),
          roles_(plan.opBuffers.at(p_.opId)),
          elem_(dtypeSize(p_.operandType)),
          aSlots_(static_cast<int>(roles_.a.size())),
          bSlots_(static_cast<int>(roles_.b.size())),
          bFills_(roles_.b.size()),
          biasSlots_(static_cast<int>(roles_.bias.size())) {
        for (const std::vector<uint32_t>& slots : roles_.operands) operandSlots_.emplace_back(static_cast<int>(slots.size()));
    }

    void run() {
        std::vector<GemmBlock> blocks;
        forEachGemmBlock(p_, s_, [&](const GemmBlock& block) { blocks.push_back(block); });
        // With two slots per operand, the stream loads one block ahead of the computation, so
        // the load queue works while the array does; in-order dispatch would otherwise reach
        // the next block's loads only after the current block's GEMMs. The sync planner still
        // orders every load after the last read of the slot it fills.
        const size_t ahead = s_.doubleBuffer ? 1 : 0;
        std::vector<std::pair<uint32_t, uint32_t>> slots(blocks.size());
        // Double-buffered, the next block's loads are interleaved with the current block's
        // GEMMs (queued ahead of them all, a long run of loads, a gathered operand's, would fill
        // the load queue and hold back their dispatch) and its fills follow them, ahead of the
        // current block's epilogue on the vector queue (behind it, they would wait for the
        // current block's last GEMM and hold back the next block's first). Single-buffered, a
        // block's loads and fills precede its GEMMs.
        // An operand no earlier op writes (a weight, a job input) is loaded first: the load
        // queue is in order, and behind the other operand's load, which waits for the op
        // producing it, it would not stream while that op finishes.
        const bool bFirst = ready(p_.b) && !ready(p_.a);
        auto load = [&](size_t i) {
            tile_ = static_cast<uint32_t>(i);
            if (bFirst) {
                slots[i].second = loadB(blocks[i]);
                slots[i].first = loadA(blocks[i]);
            } else {
                slots[i] = {loadA(blocks[i]), loadB(blocks[i])};
            }
        };
        // A result block takes the next accumulator slot, loaded with its part of the residual
        // or the bias. The first block's bias, a weight, loads ahead of the operands too.
        auto startAccumulators = [&](size_t i) {
            tile_ = static_cast<uint32_t>(i);
            accumulatorSlot_ = (accumulatorSlot_ + 1) % roles_.accumulator.size();
            if (p_.residual != kNoValue) loadResidual(blocks[i]);
            if (gemmBiasInAccumulator(p_)) loadBiasIntoAccumulator(blocks[i]);
        };
        const bool biasFirst = gemmBiasInAccumulator(p_) && !blocks.empty();
        if (biasFirst) startAccumulators(0);
        for (size_t i = 0; i < std::min(ahead, blocks.size()); ++i) load(i);
        emitLoads(pendingLoads_.size());
        emitFills();
        for (size_t i = 0; i < blocks.size(); ++i) {
            if (i + ahead < blocks.size()) load(i + ahead);
            if (ahead == 0) {
                emitLoads(pendingLoads_.size());
                emitFills();
            }
            const GemmBlock& block = blocks[i];
            if (block.firstK && !(i == 0 && biasFirst)) startAccumulators(i);
            tile_ = static_cast<uint32_t>(i);
            computeBlock(block, slots[i].first, slots[i].second);
            emitLoads(pendingLoads_.size());
            emitFills();
            if (block.lastK) finishBlock(block);
        }
    }

private:
    const OnchipBuffer& buffer(uint32_t id) const { return plan_.buffers.at(id); }
    /// Whether an operand is in memory from the job's start: a weight or a job input.
    bool ready(const GemmOperand& operand) const {
        if (!operand.gather.empty()) return false;
        const TensorRole role = plan_.tensor(operand.value).role;
        return role == TensorRole::Weight || role == TensorRole::Input;
    }

    /// Where a tensor starts: in the context window, or in SRAM when it is resident.
    uint64_t homeOffset(ValueId value) const { return plan_.tensor(value).offset; }

    void emit(const isa::Command& command, std::initializer_list<Access> accesses) {
        out_.add(command, std::span<const Access>(accesses.begin(), accesses.size()));
    }

    /// A load, held until emitLoads places it among the GEMMs.
    void emitLoad(const isa::Command& command, std::initializer_list<Access> accesses) {
        pendingLoads_.push_back({command, std::vector<Access>(accesses)});
    }

    /// Emits the first `count` held loads.
    void emitLoads(size_t count) {
        count = std::min(count, pendingLoads_.size());
        for (size_t i = 0; i < count; ++i) out_.add(pendingLoads_[i].first, pendingLoads_[i].second);
        pendingLoads_.erase(pendingLoads_.begin(), pendingLoads_.begin() + static_cast<std::ptrdiff_t>(count));
    }

    /// The block of a logical rows x cols operand matrix at (row0, col0), rows x cols
    /// elements, stored row-major or transposed (cols x rows) in DRAM.
    struct OperandBlock {
        int64_t totalRows, totalCols, row0, col0, rows, cols;
    };

    /// Loads an operand block into a slot unless it is resident; returns the slot.
    uint32_t load(const GemmOperand& operand, const std::vector<uint32_t>& slots, SlotCache& cache,
                  const BlockKey& key, int64_t batch, int64_t pitch, const OperandBlock& b) {
        const SlotCache::Use use = cache.use(key);
        const uint32_t slot = slots[static_cast<size_t>(use.slot)];
        if (!use.load) return slot;
        const uint64_t matrix = homeOffset(operand.value) +
                                static_cast<uint64_t>(operand.batchOffsets[static_cast<size_t>(batch)]) * elem_;
        DmaSpec dma;
        dma.onchipAddress = buffer(slot).offset;
        dma.onchipStride = static_cast<uint64_t>(pitch) * elem_;
        if (operand.bandColumns != 0 && b.col0 / operand.bandColumns != (b.col0 + b.cols - 1) / operand.bandColumns) {
            throw std::logic_error("a GEMM block crosses a band of its packed operand");
        }
        dma.dramStride = static_cast<uint64_t>(storedRowStride(operand, b.totalRows, b.totalCols, b.col0)) * elem_;
        dma.dramOffset = matrix + static_cast<uint64_t>(storedOffset(operand, b.totalRows, b.totalCols, b.row0, b.col0)) * elem_;
        if (operand.transposed) {
            dma.rows = static_cast<uint64_t>(b.cols);
            dma.rowBytes = static_cast<uint64_t>(b.rows) * elem_;
            dma.transposeElementBytes = elem_;
        } else {
            dma.rows = static_cast<uint64_t>(b.rows);
            dma.rowBytes = static_cast<uint64_t>(b.cols) * elem_;
        }
        markTensorTransfer(dma, plan_, operand.value);
        emitLoad(dmaCommand(dma, p_.opId, tile_),
                 {{bufferResource(slot), true}, {tensorResource(plan_, operand.value), false}});
        return slot;
    }

    uint32_t loadA(const GemmBlock& block) {
        return load(p_.a, roles_.a, aSlots_, gemmKeyA(p_, block), block.batch, roles_.aPitch,
                    {p_.m, p_.k, block.m0, block.k0, block.m, block.k});
    }

    uint32_t loadB(const GemmBlock& block) {
        if (!p_.b.gather.empty()) return gatherB(block);
        return load(p_.b, roles_.b, bSlots_, gemmKeyB(p_, block), block.batch, roles_.bPitch,
                    {p_.k, p_.n, block.k0, block.n0, block.k, block.n});
    }

    /// Emits the fills of the blocks gathered so far. They follow the GEMMs of the block being
    /// computed in the stream: a fill waits for the GEMMs that last read its slot, and queued
    /// ahead of them it would hold back the in-order dispatch of those very GEMMs.
    void emitFills() {
        for (const auto& [command, slot] : pendingFills_) emit(command, {{bufferResource(slot), true}});
        pendingFills_.clear();
    }

    /// Assembles a B block from the operand's gather pieces: one 3D DMA, or one fill, per
    /// transfer (forEachGatherTransfer); the fills, unless the slot holds them already
    /// (SlotFills), are emitted by emitFills.
    uint32_t gatherB(const GemmBlock& block) {
        const SlotCache::Use use = bSlots_.use(gemmKeyB(p_, block));
        const uint32_t slot = roles_.b[static_cast<size_t>(use.slot)];
        if (!use.load) return slot;
        std::vector<GatherFill> fills;
        std::vector<isa::Command> fillCommands;
        forEachGatherTransfer(p_, block, [&](const GatherTransfer& t) {
            const uint64_t onchip = buffer(slot).offset + static_cast<uint64_t>(t.blockRow * roles_.bPitch + t.blockCol) * elem_;
            const auto rowStride = static_cast<uint64_t>(t.rowStep * roles_.bPitch);
            if (t.piece->copy.fill) {
                fills.push_back(gatherFill(t));
                VectorSpec fill;
                fill.op = isa::VectorOp::Fill;
                fill.dtype = p_.operandType;
                fill.dst = fill.src0 = onchip;
                fill.rows = static_cast<uint64_t>(t.rows);
                fill.cols = static_cast<uint64_t>(t.length);
                fill.dstStride = fill.src0Stride = rowStride;
                fill.immediate = fills.back().value;
                fillCommands.push_back(vectorCommand(fill, p_.opId, tile_));
                return;
            }
            DmaSpec dma;
            dma.dramOffset = homeOffset(t.piece->source) + static_cast<uint64_t>(t.sourceOffset) * elem_;
            dma.onchipAddress = onchip;
            dma.planes = static_cast<uint64_t>(t.rows);
            dma.dramPlaneStride = static_cast<uint64_t>(t.rowInStride) * elem_;
            dma.onchipPlaneStride = rowStride * elem_;
            dma.rowBytes = static_cast<uint64_t>(t.length) * elem_;
            const bool resident = plan_.tensor(t.piece->source).resident();
            if (t.runInStride > 1 && t.runInStride <= maxElementStride(config_, elem_, resident)) {  // a strided run
                dma.elementBytes = elem_;
                dma.elementStride = static_cast<uint64_t>(t.runInStride) * elem_;
            } else if (t.runInStride != 1) {  // one element per DMA row
                dma.rows = static_cast<uint64_t>(t.length);
                dma.rowBytes = elem_;
                dma.dramStride = static_cast<uint64_t>(t.runInStride) * elem_;
                dma.onchipStride = elem_;
            }
            markTensorTransfer(dma, plan_, t.piece->source);
            emitLoad(dmaCommand(dma, p_.opId, tile_),
                     {{bufferResource(slot), true}, {tensorResource(plan_, t.piece->source), false}});
        });
        if (bFills_.needed(static_cast<size_t>(use.slot), std::move(fills))) {
            for (const isa::Command& fill : fillCommands) pendingFills_.push_back({fill, slot});
        }
        return slot;
    }

    uint32_t accumulator() const { return roles_.accumulator[accumulatorSlot_]; }

    /// One GEMM command per array tile of the block, or of its transpose (the tile's m and n
    /// exchanged: a command computes the same tile of the result with the array's roles
    /// exchanged).
    void computeBlock(const GemmBlock& block, uint32_t a, uint32_t b) {
        using isa::Field;
        const GemmBlock onArray = arrayBlock(block, s_);
        size_t tiles = 0;
        forEachArrayTile(config_.tensor, onArray, [&](const ArrayTile&) { ++tiles; });
        const size_t loadsPerTile = (pendingLoads_.size() + tiles - 1) / std::max<size_t>(tiles, 1);
        // Accumulators loaded with the residual or the bias: the first tiles add onto them.
        const bool preloaded = p_.residual != kNoValue || gemmBiasInAccumulator(p_);
        forEachArrayTile(config_.tensor, onArray, [&](const ArrayTile& arrayTile) {
            const ArrayTile t = s_.transposed ? ArrayTile{arrayTile.n0, arrayTile.m0, arrayTile.k0, arrayTile.n,
                                                          arrayTile.m, arrayTile.k}
                                              : arrayTile;
            isa::Command gemm;
            gemm.opcode = isa::Opcode::Gemm;
            gemm.kind = isa::CommandKind::Compute;
            gemm.opId = p_.opId;
            gemm.tileId = tile_;
            gemm.set(Field::AAddr, buffer(a).offset + static_cast<uint64_t>(t.m0 * roles_.aPitch + t.k0) * elem_)
                .set(Field::BAddr, buffer(b).offset + static_cast<uint64_t>(t.k0 * roles_.bPitch + t.n0) * elem_)
                .set(Field::CAddr, buffer(accumulator()).offset + static_cast<uint64_t>(t.m0 * s_.nBlock + t.n0) * 4)
                .set(Field::M, t.m)
                .set(Field::N, t.n)
                .set(Field::K, t.k)
                .set(Field::DType, static_cast<uint64_t>(p_.operandType))
                .set(Field::Accumulate, block.firstK && t.k0 == 0 && !preloaded ? 0 : 1)
                .set(Field::Transpose, s_.transposed ? 1 : 0)
                .set(Field::AStride, roles_.aPitch)
                .set(Field::BStride, roles_.bPitch)
                .set(Field::CStride, s_.nBlock)
                .setSigned(Field::AZeroPoint, p_.aZeroPoint)
                .setSigned(Field::BZeroPoint, p_.bZeroPoint);
            emit(gemm, {{bufferResource(a), false}, {bufferResource(b), false},
                        {bufferResource(accumulator()), true}});
            emitLoads(loadsPerTile);
        });
    }

    /// Loads the block's part of the residual into its accumulator slot, where the GEMMs then
    /// accumulate onto it.
    void loadResidual(const GemmBlock& block) {
        DmaSpec load = resultBlock(block, p_.residual);
        markTensorTransfer(load, plan_, p_.residual);
        emit(dmaCommand(load, p_.opId, tile_),
             {{bufferResource(accumulator()), true}, {tensorResource(plan_, p_.residual), false}});
    }

    /// Loads the block's part of the bias into its accumulator slot: a row bias's part read
    /// once and written to every row, a full bias's part as a residual's.
    void loadBiasIntoAccumulator(const GemmBlock& block) {
        DmaSpec load = resultBlock(block, p_.bias);
        if (p_.biasMode == BiasMode::Row) {
            load.dramOffset = homeOffset(p_.bias) + static_cast<uint64_t>(block.n0) * 4;
            load.dramStride = 0;
        }
        markTensorTransfer(load, plan_, p_.bias);
        emit(dmaCommand(load, p_.opId, tile_),
             {{bufferResource(accumulator()), true}, {tensorResource(plan_, p_.bias), false}});
    }

    /// The transfer between the block's accumulator slot and its part of `tensor`, a tensor
    /// of the result's shape (batch x M x N) of `elementBytes` elements (fp32 unless the
    /// result is stored narrower), packed in the slot's rows.
    DmaSpec resultBlock(const GemmBlock& block, ValueId tensor, uint64_t elementBytes = 4) const {
        DmaSpec dma;
        dma.dramOffset =
            homeOffset(tensor) + static_cast<uint64_t>((block.batch * p_.m + block.m0) * p_.n + block.n0) * elementBytes;
        dma.space = isa::MemorySpace::Accumulator;
        dma.onchipAddress = buffer(accumulator()).offset;
        dma.rows = block.m;
        dma.rowBytes = block.n * elementBytes;
        dma.dramStride = p_.n * elementBytes;
        dma.onchipStride = s_.nBlock * elementBytes;
        return dma;
    }

    VectorSpec onAccumulator(const GemmBlock& block) const {
        VectorSpec v;
        v.dtype = p_.accumulatorType;
        v.dstSpace = v.src0Space = isa::MemorySpace::Accumulator;
        v.dst = v.src0 = buffer(accumulator()).offset;
        v.rows = block.m;
        v.cols = block.n;
        v.dstStride = v.src0Stride = s_.nBlock;
        return v;
    }

    void finishBlock(const GemmBlock& block) {
        const uint32_t acc = accumulator();
        if (p_.alpha != 1.0f) {
            VectorSpec scale = onAccumulator(block);
            scale.op = isa::VectorOp::Mul;
            scale.mode = isa::Operand1Mode::Immediate;
            scale.immediate = std::bit_cast<uint32_t>(p_.alpha);
            emit(vectorCommand(scale, p_.opId, tile_), {{bufferResource(acc), true}});
        }
        if (p_.bias != kNoValue && !gemmBiasInAccumulator(p_)) addBias(block);
        size_t operandIndex = 0;
        for (const EpilogueStep& step : p_.epilogue) {
            VectorSpec v = onAccumulator(block);
            v.op = step.op;
            v.dtype = step.in;
            if (step.out != step.in) v.outDType = step.out;
            v.immediate2 = step.immediate2;
            if (step.immediate) {
                v.mode = isa::Operand1Mode::Immediate;
                v.immediate = *step.immediate;
            }
            std::vector<Access> accesses = {{bufferResource(acc), true}};
            if (step.operand != kNoValue) {
                const uint32_t slot = operandSlot(step, operandIndex++, block);
                readSlot(v, slot, step.operandMode, block);
                accesses.push_back({bufferResource(slot), false});
            }
            out_.add(vectorCommand(v, p_.opId, tile_), accesses);
        }
        // A narrower result is written in place: row r's elements land at or before row r's
        // own, over rows already read.
        if (epilogueResult(p_) != p_.outputType) {
            VectorSpec round = onAccumulator(block);
            round.op = isa::VectorOp::Cast;
            round.dtype = epilogueResult(p_);
            round.outDType = p_.outputType;
            emit(vectorCommand(round, p_.opId, tile_), {{bufferResource(acc), true}});
        }
        DmaSpec store = resultBlock(block, p_.output, dtypeSize(p_.outputType));
        store.load = false;
        store.kind = isa::CommandKind::Store;
        markTensorTransfer(store, plan_, p_.output);
        emit(dmaCommand(store, p_.opId, tile_),
             {{bufferResource(acc), false}, {tensorResource(plan_, p_.output), true}});
    }

    /// Makes `slot`, holding the block's part of a vector broadcast as `mode`, v's second operand.
    void readSlot(VectorSpec& v, uint32_t slot, BiasMode mode, const GemmBlock& block) const {
        v.src1 = buffer(slot).offset;
        v.src1Stride = gemmBiasExtent(mode, block).rowElements;
        switch (mode) {
            case BiasMode::Scalar: v.mode = isa::Operand1Mode::Scalar; break;
            case BiasMode::Row: v.mode = isa::Operand1Mode::Row; break;
            case BiasMode::Column: v.mode = isa::Operand1Mode::Column; break;
            case BiasMode::Full: v.mode = isa::Operand1Mode::Full; break;
        }
    }

    /// The slot holding the block's part of `value` (broadcast as `mode`), loaded unless one of
    /// `slots` still does.
    uint32_t vectorSlot(SlotCache& cache, const std::vector<uint32_t>& slots, ValueId value, BiasMode mode,
                        const GemmBlock& block) {
        const SlotCache::Use use = cache.use(gemmKeyBias(mode, block));
        const uint32_t slot = slots[static_cast<size_t>(use.slot)];
        if (use.load) loadVector(block, slot, value, mode);
        return slot;
    }

    /// The slot holding the block's part of the `index`th operand step's operand as fp32: a
    /// narrower operand is loaded into the slot's tail and dequantised over the slot, each
    /// element written at or before the bytes of those still to be read.
    uint32_t operandSlot(const EpilogueStep& step, size_t index, const GemmBlock& block) {
        const SlotCache::Use use = operandSlots_[index].use(gemmKeyBias(step.operandMode, block));
        const uint32_t slot = roles_.operands[index][static_cast<size_t>(use.slot)];
        if (!use.load) return slot;
        if (step.operandType == DType::Fp32) {
            loadVector(block, slot, step.operand, step.operandMode);
            return slot;
        }
        const BiasExtent extent = gemmBiasExtent(step.operandMode, block);
        const auto elements = static_cast<uint64_t>(extent.rows * extent.rowElements);
        const uint64_t narrow = dtypeSize(step.operandType);
        const uint64_t tail = buffer(slot).offset + elements * (4 - narrow);
        loadVector(block, slot, step.operand, step.operandMode, narrow, tail);
        VectorSpec dequantize;
        dequantize.op = isa::VectorOp::Dequantize;
        dequantize.dtype = step.operandType;
        dequantize.outDType = DType::Fp32;
        dequantize.mode = isa::Operand1Mode::Immediate;
        dequantize.immediate = std::bit_cast<uint32_t>(step.operandScale);
        dequantize.immediate2 = static_cast<uint32_t>(step.operandZeroPoint);
        dequantize.src0 = tail;
        dequantize.dst = buffer(slot).offset;
        dequantize.rows = static_cast<uint64_t>(extent.rows);
        dequantize.cols = static_cast<uint64_t>(extent.rowElements);
        dequantize.dstStride = dequantize.src0Stride = dequantize.cols;
        emit(vectorCommand(dequantize, p_.opId, tile_), {{bufferResource(slot), true}});
        return slot;
    }

    /// Adds the block's part of the bias, loaded (and scaled by beta) unless a slot holds it.
    void addBias(const GemmBlock& block) {
        const uint32_t slot = vectorSlot(biasSlots_, roles_.bias, p_.bias, p_.biasMode, block);
        VectorSpec add = onAccumulator(block);
        add.op = isa::VectorOp::Add;
        readSlot(add, slot, p_.biasMode, block);
        emit(vectorCommand(add, p_.opId, tile_),
             {{bufferResource(accumulator()), true}, {bufferResource(slot), false}});
    }

    /// Loads the block's part of `value` (elements of `elementBytes`) into `slot`, at
    /// `onchipAddress` when not the slot's start.
    void loadVector(const GemmBlock& block, uint32_t slot, ValueId value, BiasMode mode, uint64_t elementBytes = 4,
                    std::optional<uint64_t> onchipAddress = std::nullopt) {
        const BiasExtent extent = gemmBiasExtent(mode, block);
        DmaSpec load;
        load.dramOffset = homeOffset(value);
        switch (mode) {
            case BiasMode::Scalar: break;
            case BiasMode::Row: load.dramOffset += block.n0 * elementBytes; break;
            case BiasMode::Column: load.dramOffset += block.m0 * elementBytes; break;
            case BiasMode::Full: load.dramOffset += (block.m0 * p_.n + block.n0) * elementBytes; break;
        }
        load.onchipAddress = onchipAddress.value_or(buffer(slot).offset);
        load.rows = extent.rows;
        load.rowBytes = extent.rowElements * elementBytes;
        load.dramStride = p_.n * elementBytes;
        load.onchipStride = extent.rowElements * elementBytes;
        markTensorTransfer(load, plan_, value);
        emit(dmaCommand(load, p_.opId, tile_),
             {{bufferResource(slot), true}, {tensorResource(plan_, value), false}});
        if (value == p_.bias && p_.beta != 1.0f) {  // a runtime C: scale it where it sits
            VectorSpec scale;
            scale.op = isa::VectorOp::Mul;
            scale.mode = isa::Operand1Mode::Immediate;
            scale.immediate = std::bit_cast<uint32_t>(p_.beta);
            scale.dst = scale.src0 = buffer(slot).offset;
            scale.rows = extent.rows;
            scale.cols = extent.rowElements;
            scale.dstStride = scale.src0Stride = extent.rowElements;
            emit(vectorCommand(scale, p_.opId, tile_), {{bufferResource(slot), true}});
        }
    }

    const GemmProblem& p_;
    const GemmSchedule& s_;
    const MemoryPlan& plan_;
    const ArchConfig& config_;
    SyncPlanner& out_;
    const OpBuffers& roles_;
    const uint64_t elem_;
    SlotCache aSlots_, bSlots_;
    SlotFills bFills_;
    SlotCache biasSlots_;
    std::vector<SlotCache> operandSlots_;  ///< per operand step
    size_t accumulatorSlot_ = SIZE_MAX;
    std::vector<std::pair<isa::Command, uint32_t>> pendingFills_;  ///< fill commands and their slots
    std::vector<std::pair<isa::Command, std::vector<Access>>> pendingLoads_;
    uint32_t tile_ = 0;
};

}  // namespace

void emitGemm(const GemmTiles& tiles, const MemoryPlan& plan, const ArchConfig& config, SyncPlanner& out) {
    GemmEmitter(tiles, plan, config, out).run();
}

}  // namespace npusim::compiler
