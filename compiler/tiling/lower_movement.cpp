// Data movement on the NPU: each strided copy of an op is a kernel that loads blocks through
// one view and stores them through another; a Gather on indices known only at run time is an
// indexed load. The vector unit runs no step; the DMA does the work, so any dtype moves.
#include <algorithm>
#include <cstring>

#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/strided_copy.h"
#include "compiler/tiling/vector_lowering.h"

namespace npusim::compiler {
namespace {

/// Kernels beyond this many make an op a long command stream rather than a few kernels.
constexpr size_t kMaxCopyKernels = 1024;

/// The copies with every dim that walks backwards (a negative stride: Slice's negative steps)
/// unrolled into single-index copies; the DMA steps forwards only.
std::vector<StridedCopy> forwardCopies(const std::vector<StridedCopy>& copies) {
    std::vector<StridedCopy> done, pending(copies.rbegin(), copies.rend());
    while (!pending.empty()) {
        StridedCopy copy = std::move(pending.back());
        pending.pop_back();
        size_t d = 0;
        while (d < copy.dims.size() && copy.inputStrides[d] >= 0 && copy.outputStrides[d] >= 0) ++d;
        if (d == copy.dims.size()) {
            done.push_back(std::move(copy));
            continue;
        }
        if (done.size() + pending.size() + static_cast<size_t>(copy.dims[d]) > kMaxCopyKernels) {
            throw VectorUnsupported("a copy walking backwards over " + std::to_string(copy.dims[d]) +
                                    " indices (the DMA steps forwards only; at most " +
                                    std::to_string(kMaxCopyKernels) + " single-index copies)");
        }
        for (int64_t i = copy.dims[d]; i-- > 0;) {
            StridedCopy one = copy;
            one.dims[d] = 1;
            one.inputOffset += i * copy.inputStrides[d];
            one.outputOffset += i * copy.outputStrides[d];
            one.inputStrides[d] = one.outputStrides[d] = 0;
            pending.push_back(std::move(one));
        }
    }
    return done;
}

/// The widest table an indexed DMA load reads from: its index_limit field is 24 bits.
constexpr int64_t kMaxIndexedRows = (int64_t{1} << 24) - 1;

/// Gather with indices known only at run time, as an indexed DMA load: over the index space
/// [data's dims before the axis, the indices | data's dims after it], each row of the block is
/// the table row its index names, and the kernel stores the block as it is.
VectorProblem indexedGather(const Graph& graph, const Node& node, uint32_t opId) {
    const Value& data = graph.value(node.inputs[0]);
    const Value& indices = graph.value(node.inputs[1]);
    const int64_t axis = ops::gatherAxis(node, data.shape);
    const int64_t outer = elementCount(Shape(data.shape.begin(), data.shape.begin() + axis));
    const int64_t rows = data.shape[static_cast<size_t>(axis)];
    const int64_t inner = elementCount(Shape(data.shape.begin() + axis + 1, data.shape.end()));
    const int64_t count = elementCount(indices.shape);
    if (rows > kMaxIndexedRows) {
        throw VectorUnsupported("a Gather from " + std::to_string(rows) + " rows (an indexed DMA load names at most " +
                                std::to_string(kMaxIndexedRows) + ")");
    }
    VectorBuilder b(opId, "gather", {outer, count, inner}, 1);
    RowIndices picked;
    picked.list = {node.inputs[1], 0, {0, 1, 0}};
    picked.bytes = static_cast<uint32_t>(dtypeSize(indices.dtype));
    picked.limit = rows;
    picked.rowStride = inner;
    const uint32_t block = b.loadRows({node.inputs[0], 0, {rows * inner, 0, 1}}, data.dtype, std::move(picked));
    b.store(block, {node.outputs[0], 0, {count * inner, inner, 1}});
    return b.finish();
}

}  // namespace

std::vector<VectorProblem> movementProblemsFor(const Graph& graph, const Node& node, uint32_t opId) {
    const std::optional<std::vector<StridedCopy>> copies = stridedCopies(graph, node);
    if (!copies) {
        if (node.kind == OpKind::Gather) return {indexedGather(graph, node, opId)};
        if (node.kind == OpKind::Trilu) throw VectorUnsupported("Trilu with k computed at run time");
        return {};
    }
    std::vector<VectorProblem> problems;
    for (const StridedCopy& copy : forwardCopies(*copies)) {
        IndexSpace space{copy.dims, {}};
        space.add(copy.outputStrides);
        space.add(copy.inputStrides);
        shapeForRows(space);
        const ValueId input = node.inputs[copy.input], output = node.outputs[copy.output];
        VectorBuilder b(opId, copy.fill ? "fill" : "copy", space.dims, 1);
        uint32_t buffer = 0;
        const TensorView out{output, copy.outputOffset, space.strides[0]};
        if (copy.fill && copy.fill->bytes.size() == 2 * sizeof(uint32_t)) {
            // An 8-byte value (int64): its low and high words, each filled in int32.
            uint32_t words[2];
            std::memcpy(words, copy.fill->bytes.data(), sizeof words);
            TensorView high = lowWords(out);
            ++high.offset;
            b.store(b.fill(DType::Int32, words[0]), lowWords(out));
            b.store(b.fill(DType::Int32, words[1]), high);
            problems.push_back(b.finish());
            continue;
        }
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
        b.store(buffer, out);
        problems.push_back(b.finish());
        if (node.kind == OpKind::Reformat) problems.back().kind = isa::CommandKind::Reformat;
    }
    return problems;
}

}  // namespace npusim::compiler
