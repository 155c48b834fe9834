// Memory IR queries and printing.
#include "compiler/memory/memory_ir.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <sstream>
#include <stdexcept>

namespace npusim::compiler {
namespace {

const char* roleName(TensorRole role) {
    switch (role) {
        case TensorRole::Weight: return "weight";
        case TensorRole::Input: return "input";
        case TensorRole::Output: return "output";
        case TensorRole::Intermediate: return "intermediate";
    }
    return "?";
}

const char* spaceName(AddressSpace space) {
    switch (space) {
        case AddressSpace::Dram: return "dram";
        case AddressSpace::Sram: return "sram";
        case AddressSpace::Accumulator: return "acc";
    }
    return "?";
}

}  // namespace

void MemoryPlan::addTensor(const TensorHome& home) {
    if (!tensorIndex_.emplace(home.value, tensors.size()).second) {
        throw std::logic_error("memory plan: a value has two homes");
    }
    tensors.push_back(home);
}

const TensorHome& MemoryPlan::tensor(ValueId value) const {
    const auto it = tensorIndex_.find(value);
    if (it == tensorIndex_.end()) throw std::out_of_range("value has no home in the memory plan");
    return tensors[it->second];
}

std::optional<uint64_t> MemoryPlan::weightImageOffset(ValueId value) const {
    const TensorHome& home = tensor(value);
    if (home.role != TensorRole::Weight) return std::nullopt;
    for (const WeightPhase& phase : weightPhases) {
        for (const StreamedWeight& weight : phase.uploads) {
            if (weight.value == home.storage) return weight.imageOffset;
        }
    }
    return home.offset - weightsOffset;
}

TensorHome& MemoryPlan::tensor(ValueId value) {
    return const_cast<TensorHome&>(std::as_const(*this).tensor(value));
}

std::set<ValueId> MemoryPlan::residentValues() const {
    std::set<ValueId> values;
    for (const TensorHome& tensor : tensors) {
        if (tensor.resident()) values.insert(tensor.value);
    }
    return values;
}

std::vector<uint64_t> MemoryPlan::sramInUse(const std::vector<uint32_t>& opIds) const {
    // A resident buffer (shared by a tensor and its views) is in use over the union of their
    // live ranges: a difference array over positions adds it once at its first op and takes
    // it away after its last.
    std::map<uint32_t, std::pair<int, int>> residentRanges;
    for (const TensorHome& t : tensors) {
        if (!t.resident()) continue;
        auto [it, added] = residentRanges.emplace(t.buffer, std::make_pair(t.firstOp, t.lastOp));
        if (!added) it->second = {std::min(it->second.first, t.firstOp), std::max(it->second.second, t.lastOp)};
    }
    std::vector<int64_t> change(opIds.size() + 1, 0);
    for (const auto& [buffer, range] : residentRanges) {
        const auto bytes = static_cast<int64_t>(buffers.at(buffer).bytes);
        change[static_cast<size_t>(std::max(range.first, 0))] += bytes;
        change[std::min(static_cast<size_t>(range.second) + 1, opIds.size())] -= bytes;
    }
    std::unordered_map<uint32_t, uint64_t> ownSlots;  ///< SRAM slots by op id
    for (const OnchipBuffer& buffer : buffers) {
        if (buffer.space == AddressSpace::Sram && !residentRanges.contains(buffer.id)) ownSlots[buffer.opId] += buffer.bytes;
    }
    std::vector<uint64_t> inUse;
    int64_t resident = 0;
    for (size_t position = 0; position < opIds.size(); ++position) {
        resident += change[position];
        const auto own = ownSlots.find(opIds[position]);
        inUse.push_back(static_cast<uint64_t>(resident) + (own == ownSlots.end() ? 0 : own->second));
    }
    return inUse;
}

std::string printMemoryPlan(const MemoryPlan& plan, const Graph& graph) {
    std::ostringstream out;
    out << "memory.plan dram_window=" << plan.dramBytes;
    if (plan.weightPhases.empty()) {
        out << " weights=[" << plan.weightsOffset << ", " << plan.weightsOffset + plan.weights.size() << ") {\n";
    } else {
        out << " streamed_weights=" << plan.weights.size() << " {\n";
        for (const WeightPhase& phase : plan.weightPhases) {
            uint64_t bytes = 0;
            for (const StreamedWeight& upload : phase.uploads) bytes += plan.tensor(upload.value).bytes;
            out << "  phase from op " << phase.firstOp << ": uploads " << phase.uploads.size() << " weights, " << bytes
                << " bytes\n";
        }
    }
    for (const TensorHome& t : plan.tensors) {
        const Value& v = graph.value(t.value);
        out << "  " << spaceName(t.space) << " %" << v.name << " " << roleName(t.role) << " [" << t.offset
            << ", " << t.offset + t.bytes << ") " << dtypeName(v.dtype) << shapeString(v.shape)
            << " live ops " << t.firstOp << ".." << t.lastOp << (t.spilled() ? " spilled" : "") << (t.jobBoundary ? " job-boundary" : "")
            << (t.indexList ? " index-list" : "")
            << "\n";
    }
    std::unordered_map<uint32_t, std::vector<const OnchipBuffer*>> buffersOf;
    for (const OnchipBuffer& buffer : plan.buffers) buffersOf[buffer.opId].push_back(&buffer);
    for (const auto& [opId, roles] : plan.opBuffers) {
        out << "  op @" << graph.nodes.at(opId).name << ":";
        if (roles.aPitch) out << " a_pitch=" << roles.aPitch << " b_pitch=" << roles.bPitch;
        out << "\n";
        for (const OnchipBuffer* entry : buffersOf[opId]) {
            const OnchipBuffer& buffer = *entry;
            out << "    " << spaceName(buffer.space) << " " << buffer.name << " [" << buffer.offset
                << ", " << buffer.offset + buffer.bytes << ")\n";
        }
    }
    out << "}\n";
    return out.str();
}

}  // namespace npusim::compiler
