// DRAM layout and on-chip buffer allocation.
#include "compiler/memory/memory_planning.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>

namespace npusim::compiler {
namespace {

constexpr uint64_t kDramAlignment = 64;

uint64_t alignUp(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

uint64_t valueBytes(const Value& value) {
    return static_cast<uint64_t>(elementCount(value.shape)) * dtypeSize(value.dtype);
}

/// One interleave period of a memory: a buffer starting at a multiple of it starts in bank 0.
uint64_t bankPeriod(const MemoryConfig& memory) {
    return uint64_t{memory.banks} * memory.bankWidthBytes;
}

/// A transposing DMA writes one element per on-chip row: pad the pitch off a multiple of the
/// bank period so consecutive elements land in different banks.
int64_t paddedPitch(int64_t pitch, bool transposed, uint64_t elem, const MemoryConfig& sram) {
    if (!transposed || (static_cast<uint64_t>(pitch) * elem) % bankPeriod(sram) != 0) return pitch;
    return pitch + static_cast<int64_t>(sram.bankWidthBytes / elem);
}

class BufferAllocator {
public:
    BufferAllocator(MemoryPlan& plan, uint32_t opId) : plan_(plan), opId_(opId) {}

    std::vector<uint32_t> slots(AddressSpace space, const std::string& role, uint64_t bytes,
                                int count, uint64_t alignment) {
        std::vector<uint32_t> ids;
        uint64_t& next = space == AddressSpace::Sram ? nextSram_ : nextAccumulator_;
        for (int slot = 0; slot < count; ++slot) {
            OnchipBuffer buffer;
            buffer.id = static_cast<uint32_t>(plan_.buffers.size());
            buffer.space = space;
            buffer.offset = alignUp(next, alignment);
            buffer.bytes = bytes;
            buffer.opId = opId_;
            buffer.name = role + "[" + std::to_string(slot) + "]";
            next = buffer.offset + bytes;
            plan_.buffers.push_back(buffer);
            ids.push_back(buffer.id);
        }
        return ids;
    }
    uint64_t sramEnd() const { return nextSram_; }
    uint64_t accumulatorEnd() const { return nextAccumulator_; }

private:
    MemoryPlan& plan_;
    uint32_t opId_;
    uint64_t nextSram_ = 0, nextAccumulator_ = 0;
};

}  // namespace

GemmFootprint gemmFootprint(const GemmProblem& p, const GemmSchedule& s, const ArchConfig& config) {
    GemmFootprint f;
    const uint64_t elem = dtypeSize(p.operandType);
    f.aPitch = paddedPitch(s.kBlock, p.a.transposed, elem, config.sram);
    f.bPitch = paddedPitch(s.nBlock, p.b.transposed, elem, config.sram);
    f.aSlot = static_cast<uint64_t>(s.mBlock * f.aPitch) * elem;
    f.bSlot = static_cast<uint64_t>(s.kBlock * f.bPitch) * elem;
    if (p.bias != kNoValue) {
        const GemmBlock fullBlock{0, 0, 0, 0, s.mBlock, s.nBlock, s.kBlock, true, true};
        const BiasExtent bias = gemmBiasExtent(p, fullBlock);
        f.biasSlot = static_cast<uint64_t>(bias.rows * bias.rowElements) * 4;
    }
    f.accumulatorSlot = static_cast<uint64_t>(s.mBlock * s.nBlock) * 4;
    f.slots = s.doubleBuffer ? 2 : 1;
    const uint64_t period = bankPeriod(config.sram);
    f.sramBytes = f.slots * (alignUp(f.aSlot, period) + alignUp(f.bSlot, period) +
                             alignUp(f.biasSlot, period));
    f.accumulatorBytes = f.slots * alignUp(f.accumulatorSlot, bankPeriod(config.accumulator));
    return f;
}

/// Bytes of one slot of each buffer of a vector problem, for its largest block.
std::vector<uint64_t> vectorBufferBytes(const VectorProblem& p, const VectorSchedule& s) {
    int64_t rows = s.blockExtent;
    for (int d = s.blockDim + 1; d < p.rowDims(); ++d) rows *= p.dims[static_cast<size_t>(d)];
    std::vector<uint64_t> bytes;
    for (const VectorBuffer& buffer : p.buffers) {
        bytes.push_back(static_cast<uint64_t>(bufferElements(p, buffer.extent, rows)) * dtypeSize(buffer.dtype));
    }
    return bytes;
}

uint64_t vectorFootprint(const VectorProblem& p, const VectorSchedule& s, const ArchConfig& config) {
    uint64_t total = 0;
    for (uint64_t bytes : vectorBufferBytes(p, s)) total += alignUp(bytes, bankPeriod(config.sram));
    return (s.doubleBuffer ? 2 : 1) * total;
}

MemoryPlan planMemory(const Graph& graph, const TileProgram& program, const ArchConfig& config) {
    MemoryPlan plan;

    // Live ranges of every value the program touches, in op positions; a view's uses keep
    // the value it reshapes alive.
    auto storageOf = [&](ValueId id) {
        const auto view = program.views.find(id);
        return view == program.views.end() ? id : view->second;
    };
    std::map<ValueId, std::pair<int, int>> live;
    const int lastPosition = static_cast<int>(program.ops.size()) - 1;
    for (int position = 0; position <= lastPosition; ++position) {
        const Node& node = graph.nodes.at(tileOpId(program.ops[static_cast<size_t>(position)]));
        for (ValueId id : node.inputs) {
            if (id == kNoValue) continue;
            auto [it, inserted] = live.emplace(storageOf(id), std::make_pair(position, position));
            if (!inserted) it->second.second = position;
        }
        for (ValueId id : node.outputs) {
            if (!program.views.contains(id)) live.emplace(id, std::make_pair(position, position));
        }
    }
    const std::set<ValueId> inputs(graph.inputs.begin(), graph.inputs.end());
    const std::set<ValueId> outputs(graph.outputs.begin(), graph.outputs.end());
    for (ValueId id : graph.inputs) live.emplace(id, std::make_pair(0, 0));
    for (ValueId id : graph.outputs) {
        if (!program.views.contains(id)) live.emplace(id, std::make_pair(0, 0));
    }

    auto roleOf = [&](ValueId id) {
        if (graph.value(id).constant) return DramRole::Weight;
        if (inputs.contains(id)) return DramRole::Input;
        if (outputs.contains(id)) return DramRole::Output;
        return DramRole::Intermediate;
    };

    // Weights first (they form the image uploaded once), then inputs, outputs, intermediates.
    uint64_t offset = 0;
    for (DramRole role : {DramRole::Weight, DramRole::Input, DramRole::Output, DramRole::Intermediate}) {
        for (const auto& [id, range] : live) {
            if (roleOf(id) != role) continue;
            const Value& value = graph.value(id);
            DramTensor tensor;
            tensor.value = id;
            tensor.role = role;
            tensor.offset = alignUp(offset, kDramAlignment);
            tensor.bytes = valueBytes(value);
            const bool fromStart = role == DramRole::Weight || role == DramRole::Input;
            tensor.firstOp = fromStart ? 0 : range.first;
            tensor.lastOp = role == DramRole::Output ? lastPosition : range.second;
            tensor.storage = id;
            offset = tensor.offset + tensor.bytes;
            if (role == DramRole::Weight) {
                plan.weights.resize(offset);
                std::memcpy(plan.weights.data() + tensor.offset, value.constant->bytes.data(),
                            tensor.bytes);
            }
            plan.dram.push_back(tensor);
        }
    }
    plan.dramBytes = std::max<uint64_t>(alignUp(offset, kDramAlignment), kDramAlignment);
    for (const auto& [view, storage] : program.views) {
        auto owner = std::find_if(plan.dram.begin(), plan.dram.end(), [&](const DramTensor& t) { return t.value == storage; });
        if (outputs.contains(view)) owner->lastOp = lastPosition;  // read back after the job
        DramTensor tensor = *owner;
        tensor.value = view;
        tensor.bytes = valueBytes(graph.value(view));
        tensor.role = outputs.contains(view) ? DramRole::Output : tensor.role;
        plan.dram.push_back(tensor);
    }

    // On-chip buffers, one set per op; overlapping sets are ordered by the sync planner.
    for (const TileOp& op : program.ops) {
        const uint32_t opId = tileOpId(op);
        BufferAllocator allocate(plan, opId);
        OpBuffers roles;
        const uint64_t sramAlign = bankPeriod(config.sram);
        const uint64_t accAlign = bankPeriod(config.accumulator);
        if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
            const GemmFootprint f = gemmFootprint(gemm->problem, gemm->schedule, config);
            roles.aPitch = f.aPitch;
            roles.bPitch = f.bPitch;
            roles.a = allocate.slots(AddressSpace::Sram, "a", f.aSlot, f.slots, sramAlign);
            roles.b = allocate.slots(AddressSpace::Sram, "b", f.bSlot, f.slots, sramAlign);
            if (f.biasSlot) roles.bias = allocate.slots(AddressSpace::Sram, "bias", f.biasSlot, f.slots, sramAlign);
            roles.accumulator = allocate.slots(AddressSpace::Accumulator, "acc", f.accumulatorSlot,
                                               f.slots, accAlign);
        } else {
            for (const VectorKernel& kernel : std::get<VectorTiles>(op).kernels) {
                // Kernels of one op run one after another: each starts again at offset 0.
                BufferAllocator kernelAllocator(plan, opId);
                const std::vector<uint64_t> bytes = vectorBufferBytes(kernel.problem, kernel.schedule);
                std::vector<std::vector<uint32_t>>& slots = roles.vector.emplace_back();
                std::string kernelName = "k";
                kernelName += std::to_string(roles.vector.size() - 1);
                for (size_t b = 0; b < bytes.size(); ++b) {
                    std::string role = kernelName;
                    role += ".v";
                    role += std::to_string(b);
                    slots.push_back(kernelAllocator.slots(AddressSpace::Sram, role, bytes[b],
                                                          kernel.schedule.doubleBuffer ? 2 : 1, sramAlign));
                }
                if (kernelAllocator.sramEnd() > config.sram.sizeBytes) {
                    std::string message = "memory planning: a kernel of op ";
                    message += std::to_string(opId);
                    message += " does not fit on chip";
                    throw std::logic_error(message);
                }
            }
        }
        if (allocate.sramEnd() > config.sram.sizeBytes ||
            allocate.accumulatorEnd() > config.accumulator.sizeBytes) {
            throw std::logic_error("memory planning: schedule of op " + std::to_string(opId) +
                                   " does not fit on chip");
        }
        plan.opBuffers[opId] = roles;
    }
    return plan;
}

}  // namespace npusim::compiler
