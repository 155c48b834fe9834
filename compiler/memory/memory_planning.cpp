// DRAM layout, on-chip buffer allocation and, when DRAM cannot hold every weight, weight phases.
#include "compiler/memory/memory_planning.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <stdexcept>

#include "arch/artifact.h"
#include "arch/byte_text.h"
#include "compiler/graph/data_dependent.h"
#include "compiler/graph/op_table.h"
#include "compiler/memory/space_allocators.h"
#include "compiler/memory/weight_phases.h"
#include "compiler/tile/constant_bands.h"
#include "compiler/tile/footprint.h"

namespace npusim::compiler {
namespace {

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


namespace {

/// Bytes of DRAM a window may take: the device's DRAM less room for command buffers.
uint64_t windowCapacity(const DramConfig& dram) {
    return dram.sizeBytes - std::min(kCommandStagingBytes, dram.sizeBytes / 8);
}

/// Plans a program's memory, with or without weight phases. What every plan shares is found
/// once: each value's role and live range in op positions, counting the ops whose commands
/// access its storage (a view's uses keep the value it reshapes alive).
class Planner {
public:
    Planner(const Graph& graph, const TileProgram& program, const ArchConfig& config);

    /// The plan with weight phases starting at `phaseStarts` (none: every weight resident).
    MemoryPlan plan(const std::vector<int>& phaseStarts) const;
    /// The weights the commands read, with the positions of their first and last readers.
    std::vector<WeightUse> weightUses() const;
    int opCount() const { return static_cast<int>(program_.ops.size()); }
    /// A plan's DRAM at its fullest: the op there and the bytes live, weights apart.
    struct Peak {
        int position = 0;
        uint64_t weights = 0, others = 0;
    };
    Peak dramPeak(const MemoryPlan& plan) const;

private:
    ValueId storageOf(ValueId id) const {
        const auto view = program_.views.find(id);
        return view == program_.views.end() ? id : view->second;
    }
    TensorRole roleOf(ValueId id) const;
    /// Writes a weight's `bytes` bytes of DRAM image at `to`, in the layout its readers load.
    void storeImage(ValueId id, std::byte* to, uint64_t bytes) const {
        if (bytes == 0) return;  // an empty weight's data() may be null
        const Tensor& constant = *graph_.value(id).constant;
        if (const auto banded = bands_.find(id); banded != bands_.end()) {
            writeBanded(constant.bytes, banded->second, dtypeSize(constant.dtype), std::span(to, bytes));
            return;
        }
        std::memcpy(to, constant.bytes.data(), bytes);
    }
    /// Each op's on-chip buffer slots; returns the end of each op's working set in SRAM.
    std::vector<uint64_t> allocateOpBuffers(MemoryPlan& plan) const;
    /// Moves every other op's buffers above the largest working set where the memories are
    /// large enough; `sramEnds` follow.
    void alternateWorkingSets(MemoryPlan& plan, std::vector<uint64_t>& sramEnds,
                              const std::vector<uint64_t>& accumulatorEnds) const;

    const Graph& graph_;
    const TileProgram& program_;
    const ArchConfig& config_;
    int lastPosition_;
    std::set<ValueId> inputs_, outputs_, readBack_;
    std::map<ValueId, std::pair<int, int>> live_;
    std::set<ValueId> accessed_, hostAccessed_;
    std::set<ValueId> indexLists_;  ///< read by indexed loads, which take their lists from DRAM
    std::vector<int> hostPositions_;
    std::map<ValueId, ConstantBands> bands_;
};

Planner::Planner(const Graph& graph, const TileProgram& program, const ArchConfig& config)
    : graph_(graph), program_(program), config_(config), lastPosition_(static_cast<int>(program.ops.size()) - 1),
      inputs_(graph.inputs.begin(), graph.inputs.end()), outputs_(graph.outputs.begin(), graph.outputs.end()),
      bands_(constantBands(program)) {
    // Outputs, and storage an output views, are read back from DRAM after the job; so are the
    // data-dependent sizes that cut them.
    for (ValueId id : graph.outputs) readBack_.insert(storageOf(id));
    for (const Node& node : graph.nodes) {
        if (const std::optional<DataDependentSize> size = dataDependentSize(graph, node)) readBack_.insert(node.outputs[size->sizeOutput]);
    }
    // Every value an op names has a home.
    for (int position = 0; position <= lastPosition_; ++position) {
        const TileOp& op = program.ops[static_cast<size_t>(position)];
        const Node& node = graph.nodes.at(tileOpId(op));
        for (ValueId id : node.inputs) {
            if (id != kNoValue) live_.emplace(storageOf(id), std::make_pair(position, position));
        }
        for (ValueId id : node.outputs) {
            if (!program.views.contains(id)) live_.emplace(id, std::make_pair(position, position));
        }
        if (std::holds_alternative<HostTiles>(op)) hostPositions_.push_back(position);
        if (const auto* vector = std::get_if<VectorTiles>(&op)) {
            for (const VectorKernel& kernel : vector->kernels) {
                for (const VectorLoad& load : kernel.problem.loads) {
                    if (load.indices) indexLists_.insert(storageOf(load.indices->list.value));
                }
            }
        }
        for (ValueId id : accessedValues(op)) {
            const ValueId storage = storageOf(id);
            if (std::holds_alternative<HostTiles>(op)) hostAccessed_.insert(storage);
            if (accessed_.insert(storage).second) {
                live_[storage] = {position, position};
            } else {
                live_[storage].second = position;
            }
        }
    }
    for (ValueId id : graph.inputs) live_.emplace(id, std::make_pair(0, 0));
    for (ValueId id : graph.outputs) {
        if (!program.views.contains(id)) live_.emplace(id, std::make_pair(0, 0));
    }
}

TensorRole Planner::roleOf(ValueId id) const {
    if (graph_.value(id).constant) return TensorRole::Weight;
    if (inputs_.contains(id)) return TensorRole::Input;
    if (outputs_.contains(id) || readBack_.contains(id)) return TensorRole::Output;
    return TensorRole::Intermediate;
}

std::vector<WeightUse> Planner::weightUses() const {
    std::vector<WeightUse> uses;
    for (const auto& [id, range] : live_) {
        if (roleOf(id) == TensorRole::Weight && accessed_.contains(id)) {
            uses.push_back({id, valueBytes(graph_.value(id)), range.first, range.second});
        }
    }
    return uses;
}

std::vector<uint64_t> Planner::allocateOpBuffers(MemoryPlan& plan) const {
    const ArchConfig& config = config_;
    std::vector<uint64_t> workingSetEnds, accumulatorEnds;
    for (const TileOp& op : program_.ops) {
        const uint32_t opId = tileOpId(op);
        BufferAllocator allocate(plan, opId);
        OpBuffers roles;
        const uint64_t sramAlign = config.sram.bankPeriod();
        const uint64_t accAlign = config.accumulator.bankPeriod();
        uint64_t sramEnd = 0;
        if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
            const GemmFootprint f = gemmFootprint(gemm->problem, gemm->schedule, config);
            roles.aPitch = f.aPitch;
            roles.bPitch = f.bPitch;
            roles.a = allocate.slots(AddressSpace::Sram, "a", f.aSlot, f.slots, sramAlign);
            roles.b = allocate.slots(AddressSpace::Sram, "b", f.bSlot, f.slots, sramAlign);
            if (f.biasSlot) roles.bias = allocate.slots(AddressSpace::Sram, "bias", f.biasSlot, f.slots, sramAlign);
            for (size_t i = 0; i < f.operandSlots.size(); ++i) {
                roles.operands.push_back(allocate.slots(AddressSpace::Sram, i == 0 ? "operand" : "operand" + std::to_string(i),
                                                        f.operandSlots[i], f.slots, sramAlign));
            }
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
        accumulatorEnds.push_back(allocate.accumulatorEnd());
        plan.opBuffers[opId] = roles;
    }
    alternateWorkingSets(plan, workingSetEnds, accumulatorEnds);
    return workingSetEnds;
}

void Planner::alternateWorkingSets(MemoryPlan& plan, std::vector<uint64_t>& sramEnds,
                                   const std::vector<uint64_t>& accumulatorEnds) const {
    // Every other op with buffers moves its working set above the largest one (in SRAM and
    // in the accumulator memory, each where two of them take at most half of it): consecutive
    // ops then use different addresses, and an op's first loads need not wait for the last
    // reads of the op before it. SRAM above the two working sets stays for resident tensors.
    if (sramEnds.empty()) return;
    const uint64_t sramSet = alignUp(*std::max_element(sramEnds.begin(), sramEnds.end()), config_.sram.bankPeriod());
    const uint64_t accumulatorSet =
        alignUp(*std::max_element(accumulatorEnds.begin(), accumulatorEnds.end()), config_.accumulator.bankPeriod());
    const bool sram = 4 * sramSet <= config_.sram.sizeBytes;
    const bool accumulator = 4 * accumulatorSet <= config_.accumulator.sizeBytes;
    if (!sram && !accumulator) return;
    std::set<uint32_t> moved;
    bool upper = false;
    for (size_t i = 0; i < program_.ops.size(); ++i) {
        if (sramEnds[i] == 0 && accumulatorEnds[i] == 0) continue;  // no buffers: a view or a fused op
        if (upper) {
            moved.insert(tileOpId(program_.ops[i]));
            if (sram) sramEnds[i] += sramSet;
        }
        upper = !upper;
    }
    for (OnchipBuffer& buffer : plan.buffers) {
        if (!moved.contains(buffer.opId)) continue;
        const bool inSram = buffer.space == AddressSpace::Sram;
        if (inSram ? sram : accumulator) buffer.offset += inSram ? sramSet : accumulatorSet;
    }
}

MemoryPlan Planner::plan(const std::vector<int>& phaseStarts) const {
    MemoryPlan plan;
    // On-chip buffers, one set per op; overlapping sets are ordered by the sync planner.
    std::vector<uint64_t> workingSetEnds = allocateOpBuffers(plan);

    // A tensor a CPU segment reads or writes lives in DRAM, where the host copies it; so does
    // one live across a job boundary (a CPU segment, or a weight phase's start): on-chip memory
    // is only the job's own between jobs.
    const auto crossesJob = [&](ValueId id, const std::pair<int, int>& range) {
        const auto inside = [&](int p) { return range.first < p && p < range.second; };
        const auto across = [&](int start) { return range.first < start && start <= range.second; };
        return hostAccessed_.contains(id) || std::any_of(hostPositions_.begin(), hostPositions_.end(), inside) ||
               std::any_of(phaseStarts.begin(), phaseStarts.end(), across);
    };

    // Intermediates stay on chip where they fit, in the order they are produced; the others
    // are spilled to DRAM.
    std::vector<std::pair<std::pair<int, int>, ValueId>> byProduction;
    for (const auto& [id, range] : live_) {
        if (roleOf(id) == TensorRole::Intermediate && accessed_.contains(id) && !crossesJob(id, range) &&
            !indexLists_.contains(id)) {
            byProduction.push_back({range, id});
        }
    }
    std::sort(byProduction.begin(), byProduction.end());
    ResidencyAllocator residency(std::move(workingSetEnds), config_.sram);
    std::map<ValueId, uint32_t> residentBuffers;
    std::map<ValueId, uint64_t> sramToKeep;  ///< of the spilled intermediates
    for (const auto& [range, id] : byProduction) {
        const Value& value = graph_.value(id);
        const std::optional<uint64_t> offset = residency.place(range.first, range.second, valueBytes(value));
        if (!offset) {
            sramToKeep[id] = residency.sramToKeep(range.first, range.second, valueBytes(value));
            continue;
        }
        OnchipBuffer buffer;
        buffer.id = static_cast<uint32_t>(plan.buffers.size());
        buffer.offset = *offset;
        buffer.bytes = valueBytes(value);
        buffer.opId = tileOpId(program_.ops[static_cast<size_t>(range.first)]);
        buffer.name = "%" + value.name;
        plan.buffers.push_back(buffer);
        residentBuffers.emplace(id, buffer.id);
    }

    // DRAM: the resident weights first (they form the image uploaded once), then inputs and
    // outputs, each its own bytes; then the tensors with live ranges, sharing space with those
    // whose ranges they do not overlap: the intermediates that live in DRAM and, with weight
    // phases, the weights the commands read, live from their phase's start to their last reader.
    const bool streamed = !phaseStarts.empty();
    for (int start : phaseStarts) plan.weightPhases.push_back({start, {}});
    uint64_t offset = 0;
    std::vector<std::pair<ValueId, std::pair<int, int>>> shared;
    for (TensorRole role : {TensorRole::Weight, TensorRole::Input, TensorRole::Output, TensorRole::Intermediate}) {
        for (const auto& [id, range] : live_) {
            if (roleOf(id) != role) continue;
            const bool streamedWeight = streamed && role == TensorRole::Weight && accessed_.contains(id);
            if (role == TensorRole::Intermediate || streamedWeight) {
                shared.push_back({id, range});
                continue;
            }
            TensorHome tensor;
            tensor.value = id;
            tensor.role = role;
            tensor.bytes = valueBytes(graph_.value(id));
            tensor.firstOp = role == TensorRole::Output ? range.first : 0;
            tensor.lastOp = role == TensorRole::Output ? lastPosition_ : range.second;
            tensor.storage = id;
            tensor.accessed = accessed_.contains(id);
            tensor.jobBoundary = crossesJob(id, range);
        tensor.indexList = indexLists_.contains(id);
            tensor.offset = alignUp(offset, kDramAlignment);
            offset = tensor.offset + tensor.bytes;
            if (role == TensorRole::Weight) {
                plan.weights.resize(offset);
                storeImage(id, plan.weights.data() + tensor.offset, tensor.bytes);
            }
            plan.addTensor(tensor);
        }
    }
    plan.residentWeightBytes = plan.weights.size();
    std::map<ValueId, uint32_t> firstReaders;  ///< of the streamed weights
    for (auto& [id, range] : shared) {
        if (roleOf(id) != TensorRole::Weight) continue;
        firstReaders[id] = tileOpId(program_.ops[static_cast<size_t>(range.first)]);
        range.first = phaseStarts[phaseOf(phaseStarts, range.first)];
    }
    std::stable_sort(shared.begin(), shared.end(), [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
    DramReuse reuse;
    reuse.startAt(offset);
    for (const auto& [id, range] : shared) {
        const Value& value = graph_.value(id);
        TensorHome tensor;
        tensor.value = id;
        tensor.role = roleOf(id);
        tensor.bytes = valueBytes(value);
        tensor.firstOp = range.first;
        tensor.lastOp = range.second;
        tensor.storage = id;
        tensor.accessed = accessed_.contains(id);
        tensor.jobBoundary = crossesJob(id, range);
        tensor.indexList = indexLists_.contains(id);
        if (const auto resident = residentBuffers.find(id); resident != residentBuffers.end()) {
            tensor.space = AddressSpace::Sram;
            tensor.buffer = resident->second;
            tensor.offset = plan.buffers[resident->second].offset;
        } else if (!tensor.accessed) {
            continue;  // never stored: a fused result or an unused output needs no space
        } else {
            if (const auto spilled = sramToKeep.find(id); spilled != sramToKeep.end()) tensor.sramToKeep = spilled->second;
            tensor.offset = reuse.place(range.first, range.second, tensor.bytes);
        }
        if (tensor.role == TensorRole::Weight) {
            const uint64_t imageOffset = alignUp(plan.weights.size(), kDramAlignment);
            plan.weights.resize(imageOffset + tensor.bytes);
            storeImage(id, plan.weights.data() + imageOffset, tensor.bytes);
            plan.weightPhases[phaseOf(phaseStarts, range.first)].uploads.push_back({id, imageOffset, firstReaders.at(id)});
        }
        plan.addTensor(tensor);
    }
    plan.dramBytes = std::max<uint64_t>(alignUp(std::max(offset, reuse.end()), kDramAlignment), kDramAlignment);
    for (const auto& [view, storage] : program_.views) {
        if (!plan.hasTensor(storage)) continue;  // a view of a value nothing stores, itself unused
        TensorHome& owner = plan.tensor(storage);
        if (outputs_.contains(view)) owner.lastOp = lastPosition_;  // read back after the job
        TensorHome tensor = owner;
        tensor.value = view;
        tensor.bytes = valueBytes(graph_.value(view));
        tensor.role = outputs_.contains(view) ? TensorRole::Output : tensor.role;
        plan.addTensor(tensor);
    }
    return plan;
}

Planner::Peak Planner::dramPeak(const MemoryPlan& plan) const {
    std::vector<uint64_t> weights(program_.ops.size() + 1), others(program_.ops.size() + 1);
    for (const TensorHome& home : plan.tensors) {
        if (home.resident() || home.storage != home.value) continue;  // on chip, or a view of another home
        std::vector<uint64_t>& change = home.role == TensorRole::Weight ? weights : others;
        change[static_cast<size_t>(home.firstOp)] += home.bytes;
        change[static_cast<size_t>(home.lastOp) + 1] -= home.bytes;
    }
    Peak peak;
    uint64_t liveWeights = 0, liveOthers = 0;
    for (int position = 0; position <= lastPosition_; ++position) {
        liveWeights += weights[static_cast<size_t>(position)];
        liveOthers += others[static_cast<size_t>(position)];
        if (liveWeights + liveOthers > peak.weights + peak.others) peak = {position, liveWeights, liveOthers};
    }
    return peak;
}

}  // namespace

MemoryPlan planMemory(const Graph& graph, const TileProgram& program, const ArchConfig& config) {
    const Planner planner(graph, program, config);
    MemoryPlan plan = planner.plan({});
    const uint64_t capacity = windowCapacity(config.dram);
    if (plan.dramBytes <= capacity || program.ops.empty()) return plan;

    // Weights stream: phases as long as the weights they hold fit beside the rest; a plan
    // that still overflows (its intermediates lost residency across the new job boundaries,
    // or space fragmented) is cut again with the budget less the overflow.
    const std::vector<WeightUse> weights = planner.weightUses();
    uint64_t weightBytes = 0;
    for (const WeightUse& weight : weights) weightBytes += weight.bytes;
    const uint64_t others = plan.dramBytes - std::min(plan.dramBytes, weightBytes);
    uint64_t budget = capacity > others ? capacity - others : 0;
    while (true) {
        MemoryPlan streamed = planner.plan(cutWeightPhases(weights, planner.opCount(), budget));
        if (streamed.dramBytes <= capacity) return streamed;
        plan = std::move(streamed);
        const uint64_t excess = plan.dramBytes - capacity;
        if (excess >= budget) break;
        budget -= excess;
    }
    const Planner::Peak peak = planner.dramPeak(plan);
    opError(graph.nodes.at(tileOpId(program.ops[static_cast<size_t>(peak.position)])),
            "the job needs " + bytesText(plan.dramBytes) + " of DRAM, " + bytesText(peak.weights + peak.others) +
                " of it live at this op (" + bytesText(peak.weights) + " of weights, " + bytesText(peak.others) +
                " of activations), more than the " + bytesText(capacity) + " the arch's " + bytesText(config.dram.sizeBytes) +
                " of DRAM (dram.size_mib) leaves beside command buffers, even with weights streamed");
}

}  // namespace npusim::compiler
