// Data movement on the NPU: each strided copy of an op is a kernel that loads blocks through
// one view and stores them through another. The vector unit runs no step; the DMA does the
// work, so any dtype moves.
#include <algorithm>
#include <cstring>

#include "compiler/graph/op_table.h"
#include "compiler/graph/strided_copy.h"
#include "compiler/tile/vector_lowering.h"

namespace npusim::compiler {

std::vector<VectorProblem> movementProblemsFor(const Graph& graph, const Node& node, uint32_t opId) {
    const std::optional<std::vector<StridedCopy>> copies = stridedCopies(graph, node);
    if (!copies) {
        if (node.kind == OpKind::Gather) throw VectorUnsupported("Gather with indices computed at run time");
        return {};
    }
    std::vector<VectorProblem> problems;
    for (const StridedCopy& copy : *copies) {
        const auto negative = [](int64_t stride) { return stride < 0; };
        if (std::any_of(copy.inputStrides.begin(), copy.inputStrides.end(), negative) ||
            std::any_of(copy.outputStrides.begin(), copy.outputStrides.end(), negative)) {
            throw VectorUnsupported("a copy walking backwards (negative steps); the DMA steps forwards only");
        }
        IndexSpace space{copy.dims, {}};
        space.add(copy.outputStrides);
        space.add(copy.inputStrides);
        shapeForRows(space);
        const ValueId input = node.inputs[copy.input], output = node.outputs[copy.output];
        VectorBuilder b(opId, copy.fill ? "fill" : "copy", space.dims, 1);
        uint32_t buffer = 0;
        if (copy.fill) {
            if (copy.fill->bytes.size() > sizeof(uint32_t)) {
                throw VectorUnsupported("a fill of " + std::string(dtypeName(copy.fill->dtype)) +
                                        " (the vector unit fills elements of up to 4 bytes)");
            }
            uint32_t bits = 0;
            std::memcpy(&bits, copy.fill->bytes.data(), copy.fill->bytes.size());
            buffer = b.fill(copy.fill->dtype, bits);
        } else {
            // A block whatever the input's broadcasting: the DMA repeats elements, the store
            // writes every one.
            buffer = b.loadBlock({input, copy.inputOffset, space.strides[1]}, graph.value(input).dtype);
        }
        b.store(buffer, {output, copy.outputOffset, space.strides[0]});
        problems.push_back(b.finish());
    }
    return problems;
}

}  // namespace npusim::compiler
