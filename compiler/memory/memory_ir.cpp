// Memory IR queries and printing.
#include "compiler/memory/memory_ir.h"

#include <set>
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

const TensorHome& MemoryPlan::tensor(ValueId value) const {
    for (const TensorHome& tensor : tensors) {
        if (tensor.value == value) return tensor;
    }
    throw std::out_of_range("value has no home in the memory plan");
}

std::set<ValueId> MemoryPlan::residentValues() const {
    std::set<ValueId> values;
    for (const TensorHome& tensor : tensors) {
        if (tensor.resident()) values.insert(tensor.value);
    }
    return values;
}

uint64_t MemoryPlan::sramInUse(int position, uint32_t opId) const {
    std::set<uint32_t> residentBuffers, live;
    for (const TensorHome& t : tensors) {
        if (!t.resident()) continue;
        residentBuffers.insert(t.buffer);
        if (t.firstOp <= position && position <= t.lastOp) live.insert(t.buffer);
    }
    uint64_t bytes = 0;
    for (uint32_t id : live) bytes += buffers.at(id).bytes;
    for (const OnchipBuffer& buffer : buffers) {
        if (buffer.space == AddressSpace::Sram && buffer.opId == opId && !residentBuffers.contains(buffer.id)) {
            bytes += buffer.bytes;
        }
    }
    return bytes;
}

std::string printMemoryPlan(const MemoryPlan& plan, const Graph& graph) {
    std::ostringstream out;
    out << "memory.plan dram_window=" << plan.dramBytes << " weights=[" << plan.weightsOffset
        << ", " << plan.weightsOffset + plan.weights.size() << ") {\n";
    for (const TensorHome& t : plan.tensors) {
        const Value& v = graph.value(t.value);
        out << "  " << spaceName(t.space) << " %" << v.name << " " << roleName(t.role) << " [" << t.offset
            << ", " << t.offset + t.bytes << ") " << dtypeName(v.dtype) << shapeString(v.shape)
            << " live ops " << t.firstOp << ".." << t.lastOp << (t.spilled() ? " spilled" : "") << (t.hostBoundary ? " host" : "")
            << "\n";
    }
    for (const auto& [opId, roles] : plan.opBuffers) {
        out << "  op @" << graph.nodes.at(opId).name << ":";
        if (roles.aPitch) out << " a_pitch=" << roles.aPitch << " b_pitch=" << roles.bPitch;
        out << "\n";
        for (const OnchipBuffer& buffer : plan.buffers) {
            if (buffer.opId != opId) continue;
            out << "    " << spaceName(buffer.space) << " " << buffer.name << " [" << buffer.offset
                << ", " << buffer.offset + buffer.bytes << ")\n";
        }
    }
    out << "}\n";
    return out.str();
}

}  // namespace npusim::compiler
