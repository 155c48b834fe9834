// stridedCopies: the dense ops here, the others from their op implementation files.
#include "compiler/graph/strided_copy.h"

#include "compiler/graph/op_impl.h"

namespace npusim::compiler {

std::optional<std::vector<StridedCopy>> stridedCopies(const Graph& graph, const Node& node) {
    switch (node.kind) {
        case OpKind::Reshape:
        case OpKind::Flatten:
        case OpKind::Squeeze:
        case OpKind::Unsqueeze: {
            // The same row-major elements under another shape: one contiguous run.
            const int64_t count = elementCount(graph.value(node.outputs[0]).shape);
            return std::vector<StridedCopy>{{0, 0, {count}, 0, 0, {1}, {1}, std::nullopt}};
        }
        case OpKind::Dropout: {
            // Inference mode: Y is X, and the optional mask is all true.
            const int64_t count = elementCount(graph.value(node.outputs[0]).shape);
            std::vector<StridedCopy> copies = {{0, 0, {count}, 0, 0, {1}, {1}, std::nullopt}};
            if (node.outputs.size() > 1 && node.outputs[1] != kNoValue) {
                Tensor yes = Tensor::zeros(DType::Bool, {});
                yes.bytes[0] = std::byte{1};
                copies.push_back({0, 1, {count}, 0, 0, {0}, {1}, std::move(yes)});
            }
            return copies;
        }
        case OpKind::Transpose:
        case OpKind::Reformat: return ops::transposeCopies(graph, node);
        case OpKind::DepthToSpace:
        case OpKind::SpaceToDepth: return ops::blockPermuteCopies(graph, node);
        case OpKind::Concat: return ops::concatCopies(graph, node);
        case OpKind::Split: return ops::splitCopies(graph, node);
        case OpKind::Slice: return ops::sliceCopies(graph, node);
        case OpKind::Gather: return ops::gatherCopies(graph, node);
        case OpKind::Expand: return ops::expandCopies(graph, node);
        case OpKind::Tile: return ops::tileCopies(graph, node);
        case OpKind::Pad: return ops::padCopies(graph, node);
        case OpKind::Im2Col: return ops::im2colCopies(graph, node);
        case OpKind::Trilu: return ops::triluCopies(graph, node);
        default: return std::nullopt;
    }
}

}  // namespace npusim::compiler
