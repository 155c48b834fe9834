// DRAM layout and on-chip buffer allocation.
#include "compiler/memory/memory_planning.h"

#include <algorithm>
#include <cstring>
#include <optional>
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

uint64_t residentFootprint(const Value& value, const MemoryConfig& sram) {
    return alignUp(valueBytes(value), bankPeriod(sram));
}

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

std::vector<ValueId> accessedValues(const TileOp& op) {
    std::vector<ValueId> values;
    if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
        const GemmProblem& p = gemm->problem;
        for (const GemmOperand* operand : {&p.a, &p.b}) {
            if (operand->gather.empty()) values.push_back(operand->value);
            for (const GatherPiece& piece : operand->gather) {
                if (!piece.copy.fill) values.push_back(piece.source);
            }
        }
        values.push_back(p.bias);
        values.push_back(p.output);
    } else if (const auto* host = std::get_if<HostTiles>(&op)) {
        values = host->host.inputs;
        values.insert(values.end(), host->host.outputs.begin(), host->host.outputs.end());
    } else {
        for (const VectorKernel& kernel : std::get<VectorTiles>(op).kernels) {
            for (const VectorLoad& load : kernel.problem.loads) values.push_back(load.view.value);
            for (const VectorStore& store : kernel.problem.stores) values.push_back(store.view.value);
        }
    }
    std::erase(values, kNoValue);
    return values;
}

namespace {

/// Places intermediates in SRAM above the working sets of the ops they live across, from the
/// top of SRAM down, sharing space between tensors whose live ranges do not meet.
class ResidencyAllocator {
public:
    ResidencyAllocator(std::vector<uint64_t> workingSetEnds, const MemoryConfig& sram)
        : ends_(std::move(workingSetEnds)), period_(bankPeriod(sram)), size_(sram.sizeBytes) {}

    /// The SRAM offset of a tensor of `bytes` live over op positions [first, last], or
    /// nullopt when it does not fit there.
    std::optional<uint64_t> place(int first, int last, uint64_t bytes) {
        bytes = alignUp(bytes, period_);
        const uint64_t floor = workingSetTop(first, last);
        std::vector<const Placement*> concurrent;
        std::vector<uint64_t> tops{size_ / period_ * period_};
        for (const Placement& other : placed_) {
            if (other.first > last || first > other.last) continue;
            concurrent.push_back(&other);
            tops.push_back(other.offset);
        }
        std::sort(tops.rbegin(), tops.rend());
        for (uint64_t top : tops) {
            if (top < floor + bytes) break;
            const uint64_t offset = top - bytes;
            const bool free = std::none_of(concurrent.begin(), concurrent.end(), [&](const Placement* other) {
                return other->offset < offset + bytes && offset < other->offset + other->bytes;
            });
            if (free) {
                placed_.push_back({first, last, offset, bytes});
                return offset;
            }
        }
        return std::nullopt;
    }

    /// The highest end of the working sets of the ops at positions [first, last].
    uint64_t workingSetTop(int first, int last) const {
        return *std::max_element(ends_.begin() + first, ends_.begin() + last + 1);
    }
    /// SRAM bytes that would hold a tensor over [first, last] beside the working sets.
    uint64_t sramToKeep(int first, int last, uint64_t bytes) const {
        return workingSetTop(first, last) + alignUp(bytes, period_);
    }

private:
    struct Placement {
        int first, last;
        uint64_t offset, bytes;
    };
    std::vector<uint64_t> ends_;
    uint64_t period_, size_;
    std::vector<Placement> placed_;
};

/// DRAM for intermediates, first fit among those whose live ranges (op positions, inclusive)
/// overlap: tensors that are never live together share bytes. Tensors are placed in the order
/// of their live ranges' starts.
class DramReuse {
public:
    /// Where the intermediates' space begins (after weights, inputs and outputs).
    void startAt(uint64_t base) { base_ = alignUp(base, kDramAlignment); }

    uint64_t place(int first, int last, uint64_t bytes) {
        // Ranges placed before end before `first` conflict with none of the later tensors.
        std::erase_if(active_, [&](const Placed& p) { return p.last < first; });
        std::sort(active_.begin(), active_.end(), [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
        uint64_t offset = base_;
        for (const Placed& p : active_) {
            if (offset + bytes <= p.offset) break;
            offset = std::max(offset, alignUp(p.offset + p.bytes, kDramAlignment));
        }
        active_.push_back({first, last, offset, bytes});
        end_ = std::max(end_, offset + bytes);
        return offset;
    }
    uint64_t end() const { return end_; }

private:
    struct Placed {
        int first, last;
        uint64_t offset, bytes;
    };
    uint64_t base_ = 0, end_ = 0;
    std::vector<Placed> active_;
};

}  // namespace

MemoryPlan planMemory(const Graph& graph, const TileProgram& program, const ArchConfig& config) {
    MemoryPlan plan;
    auto storageOf = [&](ValueId id) {
        const auto view = program.views.find(id);
        return view == program.views.end() ? id : view->second;
    };
    const int lastPosition = static_cast<int>(program.ops.size()) - 1;
    const std::set<ValueId> inputs(graph.inputs.begin(), graph.inputs.end());
    const std::set<ValueId> outputs(graph.outputs.begin(), graph.outputs.end());
    // Outputs, and storage an output views, are read back from DRAM after the job.
    std::set<ValueId> readBack;
    for (ValueId id : graph.outputs) readBack.insert(storageOf(id));
    auto roleOf = [&](ValueId id) {
        if (graph.value(id).constant) return TensorRole::Weight;
        if (inputs.contains(id)) return TensorRole::Input;
        if (outputs.contains(id) || readBack.contains(id)) return TensorRole::Output;
        return TensorRole::Intermediate;
    };

    // Every value an op names has a home; live ranges in op positions count the ops whose
    // commands access the value's storage (a view's uses keep the value it reshapes alive).
    std::map<ValueId, std::pair<int, int>> live;
    std::set<ValueId> accessed, hostAccessed;
    for (int position = 0; position <= lastPosition; ++position) {
        const TileOp& op = program.ops[static_cast<size_t>(position)];
        const Node& node = graph.nodes.at(tileOpId(op));
        for (ValueId id : node.inputs) {
            if (id != kNoValue) live.emplace(storageOf(id), std::make_pair(position, position));
        }
        for (ValueId id : node.outputs) {
            if (!program.views.contains(id)) live.emplace(id, std::make_pair(position, position));
        }
        for (ValueId id : accessedValues(op)) {
            const ValueId storage = storageOf(id);
            if (std::holds_alternative<HostTiles>(op)) hostAccessed.insert(storage);
            if (accessed.insert(storage).second) {
                live[storage] = {position, position};
            } else {
                live[storage].second = position;
            }
        }
    }
    for (ValueId id : graph.inputs) live.emplace(id, std::make_pair(0, 0));
    for (ValueId id : graph.outputs) {
        if (!program.views.contains(id)) live.emplace(id, std::make_pair(0, 0));
    }

    // On-chip buffers, one set per op; overlapping sets are ordered by the sync planner.
    std::vector<uint64_t> workingSetEnds;
    for (const TileOp& op : program.ops) {
        const uint32_t opId = tileOpId(op);
        BufferAllocator allocate(plan, opId);
        OpBuffers roles;
        const uint64_t sramAlign = bankPeriod(config.sram);
        const uint64_t accAlign = bankPeriod(config.accumulator);
        uint64_t sramEnd = 0;
        if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
            const GemmFootprint f = gemmFootprint(gemm->problem, gemm->schedule, config);
            roles.aPitch = f.aPitch;
            roles.bPitch = f.bPitch;
            roles.a = allocate.slots(AddressSpace::Sram, "a", f.aSlot, f.slots, sramAlign);
            roles.b = allocate.slots(AddressSpace::Sram, "b", f.bSlot, f.slots, sramAlign);
            if (f.biasSlot) roles.bias = allocate.slots(AddressSpace::Sram, "bias", f.biasSlot, f.slots, sramAlign);
            roles.accumulator = allocate.slots(AddressSpace::Accumulator, "acc", f.accumulatorSlot,
                                               f.slots, accAlign);
            sramEnd = allocate.sramEnd();
        } else if (const auto* vector = std::get_if<VectorTiles>(&op)) {
            for (const VectorKernel& kernel : vector->kernels) {
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
                sramEnd = std::max(sramEnd, kernelAllocator.sramEnd());
            }
        }
        if (sramEnd > config.sram.sizeBytes || allocate.accumulatorEnd() > config.accumulator.sizeBytes) {
            throw std::logic_error("memory planning: schedule of op " + std::to_string(opId) +
                                   " does not fit on chip");
        }
        workingSetEnds.push_back(sramEnd);
        plan.opBuffers[opId] = roles;
    }

    // Intermediates stay on chip where they fit, in the order they are produced; the others
    // are spilled to DRAM.
    // A tensor a CPU segment reads or writes lives in DRAM, where the host copies it; so does
    // one live across a CPU segment: on-chip memory is only the job's own between jobs.
    std::vector<int> hostPositions;
    for (int position = 0; position <= lastPosition; ++position) {
        if (std::holds_alternative<HostTiles>(program.ops[static_cast<size_t>(position)])) hostPositions.push_back(position);
    }
    const auto acrossHost = [&](const std::pair<int, int>& range) {
        return std::any_of(hostPositions.begin(), hostPositions.end(),
                           [&](int p) { return range.first < p && p < range.second; });
    };
    std::vector<std::pair<std::pair<int, int>, ValueId>> byProduction;
    for (const auto& [id, range] : live) {
        if (roleOf(id) == TensorRole::Intermediate && accessed.contains(id) && !hostAccessed.contains(id) &&
            !acrossHost(range)) {
            byProduction.push_back({range, id});
        }
    }
    std::sort(byProduction.begin(), byProduction.end());
    ResidencyAllocator residency(std::move(workingSetEnds), config.sram);
    std::map<ValueId, uint32_t> residentBuffers;
    std::map<ValueId, uint64_t> sramToKeep;  ///< of the spilled intermediates
    for (const auto& [range, id] : byProduction) {
        const Value& value = graph.value(id);
        const std::optional<uint64_t> offset = residency.place(range.first, range.second, valueBytes(value));
        if (!offset) {
            sramToKeep[id] = residency.sramToKeep(range.first, range.second, valueBytes(value));
            continue;
        }
        OnchipBuffer buffer;
        buffer.id = static_cast<uint32_t>(plan.buffers.size());
        buffer.offset = *offset;
        buffer.bytes = valueBytes(value);
        buffer.opId = tileOpId(program.ops[static_cast<size_t>(range.first)]);
        buffer.name = "%" + value.name;
        plan.buffers.push_back(buffer);
        residentBuffers.emplace(id, buffer.id);
    }

    // DRAM: weights first (they form the image uploaded once), then inputs and outputs, each
    // its own bytes; then the intermediates that live in DRAM, sharing space with those whose
    // live ranges they do not overlap.
    uint64_t offset = 0;
    DramReuse intermediates;
    for (TensorRole role : {TensorRole::Weight, TensorRole::Input, TensorRole::Output, TensorRole::Intermediate}) {
        std::vector<std::pair<ValueId, std::pair<int, int>>> members;
        for (const auto& [id, range] : live) {
            if (roleOf(id) == role) members.push_back({id, range});
        }
        if (role == TensorRole::Intermediate) {
            intermediates.startAt(offset);
            std::stable_sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
        }
        for (const auto& [id, range] : members) {
            const Value& value = graph.value(id);
            TensorHome tensor;
            tensor.value = id;
            tensor.role = role;
            tensor.bytes = valueBytes(value);
            const bool fromStart = role == TensorRole::Weight || role == TensorRole::Input;
            tensor.firstOp = fromStart ? 0 : range.first;
            tensor.lastOp = role == TensorRole::Output ? lastPosition : range.second;
            tensor.storage = id;
            tensor.accessed = accessed.contains(id);
            tensor.hostBoundary = hostAccessed.contains(id) || acrossHost(range);
            if (const auto resident = residentBuffers.find(id); resident != residentBuffers.end()) {
                tensor.space = AddressSpace::Sram;
                tensor.buffer = resident->second;
                tensor.offset = plan.buffers[resident->second].offset;
            } else if (role == TensorRole::Intermediate && !tensor.accessed) {
                continue;  // never stored: a fused result or an unused output needs no space
            } else {
                if (const auto spilled = sramToKeep.find(id); spilled != sramToKeep.end()) {
                    tensor.sramToKeep = spilled->second;
                }
                if (role == TensorRole::Intermediate) {
                    tensor.offset = intermediates.place(range.first, range.second, tensor.bytes);
                } else {
                    tensor.offset = alignUp(offset, kDramAlignment);
                    offset = tensor.offset + tensor.bytes;
                }
            }
            if (role == TensorRole::Weight) {
                plan.weights.resize(offset);
                if (tensor.bytes != 0) {  // an empty weight's data() may be null
                    std::memcpy(plan.weights.data() + tensor.offset, value.constant->bytes.data(), tensor.bytes);
                }
            }
            plan.addTensor(tensor);
        }
    }
    plan.dramBytes = std::max<uint64_t>(alignUp(std::max(offset, intermediates.end()), kDramAlignment), kDramAlignment);
    for (const auto& [view, storage] : program.views) {
        if (!plan.hasTensor(storage)) continue;  // a view of a value nothing stores, itself unused
        TensorHome& owner = plan.tensor(storage);
        if (outputs.contains(view)) owner.lastOp = lastPosition;  // read back after the job
        TensorHome tensor = owner;
        tensor.value = view;
        tensor.bytes = valueBytes(graph.value(view));
        tensor.role = outputs.contains(view) ? TensorRole::Output : tensor.role;
        plan.addTensor(tensor);
    }
    return plan;
}

}  // namespace npusim::compiler
