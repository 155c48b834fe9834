// Elementwise code generation: per block, load a contiguous run of elements, apply the op in
// place on the vector unit (full rows, then a tail row), and store the run.
#include <algorithm>

#include "compiler/target/command_builder.h"
#include "compiler/target/op_codegen.h"

namespace npusim::compiler {

void emitElementwise(const ElementwiseTiles& tiles, const MemoryPlan& plan, SyncPlanner& out) {
    const ElementwiseProblem& p = tiles.problem;
    const ElementwiseSchedule& s = tiles.schedule;
    const OpBuffers& roles = plan.opBuffers.at(p.opId);
    const uint64_t elem = dtypeSize(p.dtype);
    const int64_t blockElements = s.width * s.blockRows;
    const uint32_t input = dramResource(plan, p.input), output = dramResource(plan, p.output);
    uint32_t tile = 0;
    for (int64_t start = 0; start < p.elements; start += blockElements, ++tile) {
        const uint32_t slot = roles.data[tile % roles.data.size()];
        const uint64_t address = plan.buffers.at(slot).offset;
        const int64_t elements = std::min(blockElements, p.elements - start);
        const uint64_t bytes = static_cast<uint64_t>(elements) * elem;

        DmaSpec load;
        load.dramOffset = plan.dramTensor(p.input).offset + static_cast<uint64_t>(start) * elem;
        load.onchipAddress = address;
        load.rowBytes = load.dramStride = load.onchipStride = bytes;
        const Access loadAccesses[] = {{bufferResource(slot), true}, {input, false}};
        out.add(dmaCommand(load, p.opId, tile), loadAccesses);

        const int64_t fullRows = elements / s.width, tail = elements % s.width;
        for (const auto& [rows, cols, offset] :
             {std::tuple{fullRows, s.width, int64_t{0}}, std::tuple{int64_t{1}, tail, fullRows * s.width}}) {
            if (rows == 0 || cols == 0) continue;
            VectorSpec v;
            v.op = p.op;
            v.dtype = p.dtype;
            v.dst = v.src0 = address + static_cast<uint64_t>(offset) * elem;
            v.rows = static_cast<uint64_t>(rows);
            v.cols = static_cast<uint64_t>(cols);
            v.dstStride = v.src0Stride = static_cast<uint64_t>(cols);
            const Access computeAccesses[] = {{bufferResource(slot), true}};
            out.add(vectorCommand(v, p.opId, tile), computeAccesses);
        }

        DmaSpec store = load;
        store.load = false;
        store.kind = isa::CommandKind::Store;
        store.dramOffset = plan.dramTensor(p.output).offset + static_cast<uint64_t>(start) * elem;
        const Access storeAccesses[] = {{bufferResource(slot), false}, {output, true}};
        out.add(dmaCommand(store, p.opId, tile), storeAccesses);
    }
}

}  // namespace npusim::compiler
