// Vector kernel code generation: per block, the loads of every view, one vector command per
// step, then the stores; blocks alternate between the two slots of each buffer when the
// schedule double-buffers, so block i+1 loads while block i computes.
#include <stdexcept>

#include "compiler/target/command_builder.h"
#include "compiler/target/op_codegen.h"

namespace npusim::compiler {
namespace {

isa::Operand1Mode operandMode(BufferExtent dst, BufferExtent src1) {
    if (dst == BufferExtent::Block && src1 == BufferExtent::Column) return isa::Operand1Mode::Column;
    if (dst == BufferExtent::Block && src1 == BufferExtent::Row) return isa::Operand1Mode::Row;
    return isa::Operand1Mode::Full;
}

class KernelEmitter {
public:
    KernelEmitter(const VectorKernel& kernel, const std::vector<std::vector<uint32_t>>& slots,
                  const MemoryPlan& plan, const ArchConfig& config, SyncPlanner& out)
        : p_(kernel.problem), s_(kernel.schedule), slots_(slots), plan_(plan), config_(config), out_(out) {}

    void emit(uint32_t& tile) {
        const size_t slots = slots_.front().size();
        size_t blocks = 0;
        forEachVectorBlock(p_, s_, [&](const VectorBlock& block) {
            const size_t slot = tile % slots;
            for (const VectorLoad& load : p_.loads) {
                // A plane buffer's padding is written once per slot: its loads write only the planes.
                if (load.plane && blocks < slots) fillPadding(load, slot, tile);
                transfer(block, load, load.buffer, slot, true, tile);
            }
            for (const VectorStep& step : p_.steps) {
                if (step.window) {
                    computeWindow(block, step, slot, tile);
                } else {
                    compute(block, step, slot, tile);
                }
            }
            for (const VectorStore& store : p_.stores) transfer(block, {store.view, store.buffer, {}, {}}, store.buffer, slot, false, tile);
            ++tile;
            ++blocks;
        });
    }

private:
    uint32_t slotOf(uint32_t buffer, size_t slot) const { return slots_.at(buffer).at(slot); }
    uint64_t address(uint32_t buffer, size_t slot) const { return plan_.buffers.at(slotOf(buffer, slot)).offset; }

    void transfer(const VectorBlock& block, const VectorLoad& access, uint32_t buffer, size_t slot, bool load,
                  uint32_t tile) {
        const TensorView& view = access.view;
        const VectorBuffer& b = p_.buffers[buffer];
        const uint64_t elem = dtypeSize(b.dtype);
        const uint64_t base = address(buffer, slot);
        const uint64_t dramBase = plan_.tensor(view.value).offset;
        std::vector<Access> accesses{{bufferResource(slotOf(buffer, slot)), load},
                                     {tensorResource(plan_, view.value), !load}};
        if (access.indices) {
            if (plan_.tensor(access.indices->list.value).resident()) {
                throw std::logic_error("codegen: an index list must live in DRAM");
            }
            accesses.push_back({tensorResource(plan_, access.indices->list.value), false});
        }
        const int64_t maxStride = maxElementStride(config_, elem, plan_.tensor(view.value).resident());
        for (const BlockTransfer& t : loadTransfers(p_, s_, block, access, maxStride)) {
            DmaSpec spec;
            spec.load = load;
            spec.kind = p_.kind != isa::CommandKind::Compute ? p_.kind
                        : load                               ? isa::CommandKind::Load
                                                             : isa::CommandKind::Store;
            spec.dramOffset = dramBase + static_cast<uint64_t>(t.dramOffset) * elem;
            spec.onchipAddress = base + static_cast<uint64_t>(t.onchipOffset) * elem;
            spec.rows = static_cast<uint64_t>(t.rows);
            spec.rowBytes = static_cast<uint64_t>(t.rowElements) * elem;
            if (t.elementStride != 1) {
                spec.elementBytes = elem;
                spec.elementStride = static_cast<uint64_t>(t.elementStride) * elem;
            }
            spec.dramStride = static_cast<uint64_t>(t.dramRowStride) * elem;
            spec.onchipStride = static_cast<uint64_t>(t.onchipRowStride) * elem;
            spec.planes = static_cast<uint64_t>(t.planes);
            spec.dramPlaneStride = static_cast<uint64_t>(t.dramPlaneStride) * elem;
            spec.onchipPlaneStride = static_cast<uint64_t>(t.onchipPlaneStride) * elem;
            if (const std::optional<RowIndices>& indices = access.indices) {
                spec.indexBytes = indices->bytes;
                spec.indexAddress = plan_.tensor(indices->list.value).offset + static_cast<uint64_t>(t.firstIndex) * indices->bytes;
                spec.indexLimit = static_cast<uint64_t>(indices->limit);
            }
            markTensorTransfer(spec, plan_, view.value);
            out_.add(dmaCommand(spec, p_.opId, tile), accesses);
        }
    }

    void compute(const VectorBlock& block, const VectorStep& step, size_t slot, uint32_t tile) {
        const BufferExtent src0 = p_.buffers[step.src0].extent, dst = p_.buffers[step.dst].extent;
        const auto cols = static_cast<uint64_t>(p_.blockCols());
        const auto rows = static_cast<uint64_t>(block.rows);
        VectorSpec v;
        v.op = step.op;
        v.dtype = p_.buffers[step.src0].dtype;
        v.outDType = p_.buffers[step.dst].dtype;
        v.dst = address(step.dst, slot);
        v.src0 = address(step.src0, slot);
        v.rows = src0 == BufferExtent::Row ? 1 : rows;
        v.cols = src0 == BufferExtent::Column ? 1 : cols;
        v.src0Stride = v.cols;
        v.dstStride = dst == BufferExtent::Column ? 1 : v.cols;
        if (step.src1) {
            v.mode = operandMode(dst, p_.buffers[*step.src1].extent);
            v.src1 = address(*step.src1, slot);
            v.src1Stride = v.mode == isa::Operand1Mode::Full ? v.cols : 0;
        } else if (step.immediate) {
            v.mode = isa::Operand1Mode::Immediate;
            v.immediate = *step.immediate;
        }
        v.immediate2 = step.immediate2;
        std::vector<Access> accesses{{bufferResource(slotOf(step.dst, slot)), true},
                                     {bufferResource(slotOf(step.src0, slot)), false}};
        if (step.src1) accesses.push_back({bufferResource(slotOf(*step.src1, slot)), false});
        out_.add(vectorCommand(v, p_.opId, tile), accesses);
    }

    /// Fills a plane buffer's slot, every row the schedule's blocks may use, with the padding value.
    void fillPadding(const VectorLoad& load, size_t slot, uint32_t tile) {
        const VectorBuffer& b = p_.buffers[load.buffer];
        VectorSpec v;
        v.op = isa::VectorOp::Fill;
        v.dtype = b.dtype;
        v.dst = v.src0 = address(load.buffer, slot);
        v.rows = static_cast<uint64_t>(blockCapacityRows(p_, s_));
        v.cols = static_cast<uint64_t>(b.width);
        v.dstStride = v.src0Stride = v.cols;
        v.mode = isa::Operand1Mode::Immediate;
        v.immediate = load.plane->padBits;
        const Access accesses[] = {{bufferResource(slotOf(load.buffer, slot)), true}};
        out_.add(vectorCommand(v, p_.opId, tile), accesses);
    }

    /// A windowed step: one command per windowCommands entry.
    void computeWindow(const VectorBlock& block, const VectorStep& step, size_t slot, uint32_t tile) {
        const uint64_t in = dtypeSize(p_.buffers[step.src0].dtype), out = dtypeSize(p_.buffers[step.dst].dtype);
        std::vector<Access> accesses{{bufferResource(slotOf(step.dst, slot)), true},
                                     {bufferResource(slotOf(step.src0, slot)), false}};
        if (step.src1) accesses.push_back({bufferResource(slotOf(*step.src1, slot)), false});
        for (const WindowCommand& c : windowCommands(p_, step, block.rows)) {
            VectorSpec v;
            v.op = step.op;
            v.dtype = p_.buffers[step.src0].dtype;
            v.outDType = p_.buffers[step.dst].dtype;
            v.dst = address(step.dst, slot) + static_cast<uint64_t>(c.dst) * out;
            v.src0 = address(step.src0, slot) + static_cast<uint64_t>(c.src0) * in;
            v.rows = static_cast<uint64_t>(c.rows);
            v.cols = static_cast<uint64_t>(c.cols);
            v.dstStride = static_cast<uint64_t>(c.dstStride);
            v.src0Stride = static_cast<uint64_t>(c.src0Stride);
            v.src0ColStride = static_cast<uint64_t>(c.src0ColStride);
            if (step.src1) {
                v.mode = c.src1Scalar ? isa::Operand1Mode::Scalar
                                      : operandMode(BufferExtent::Block, p_.buffers[*step.src1].extent);
                v.src1 = address(*step.src1, slot) + static_cast<uint64_t>(c.src1) * in;
                v.src1Stride = static_cast<uint64_t>(c.src1Stride);
            } else if (step.immediate) {
                v.mode = isa::Operand1Mode::Immediate;
                v.immediate = *step.immediate;
            }
            v.immediate2 = step.immediate2;
            out_.add(vectorCommand(v, p_.opId, tile), accesses);
        }
    }

    const VectorProblem& p_;
    const VectorSchedule& s_;
    const std::vector<std::vector<uint32_t>>& slots_;
    const MemoryPlan& plan_;
    const ArchConfig& config_;
    SyncPlanner& out_;
};

}  // namespace

void emitVector(const VectorTiles& tiles, const MemoryPlan& plan, const ArchConfig& config, SyncPlanner& out) {
    const OpBuffers& roles = plan.opBuffers.at(tiles.opId);
    uint32_t tile = 0;
    for (size_t k = 0; k < tiles.kernels.size(); ++k) {
        KernelEmitter(tiles.kernels[k], roles.vector.at(k), plan, config, out).emit(tile);
    }
}

}  // namespace npusim::compiler
