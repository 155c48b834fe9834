// Transpose, DepthToSpace and SpaceToDepth: elements reordered by an axis permutation (the block
// ops are a reshape, a transpose and a reshape, as ONNX defines them).
#include <algorithm>
#include <numeric>

#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// Transpose's perm attribute, checked to be a permutation of the input axes; the reversed axes
/// by default.
std::vector<int64_t> permutation(const Node& node, size_t rank) {
    std::vector<int64_t> perm(rank);
    std::iota(perm.rbegin(), perm.rend(), 0);
    perm = intListAttr(node, "perm", perm);
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> axes(rank);
    std::iota(axes.begin(), axes.end(), 0);
    if (sorted != axes) {
        opError(node, "perm " + shapeString(perm) + " is not a permutation of the " +
                          std::to_string(rank) + " input axes");
    }
    return perm;
}

Shape permutedShape(const Shape& shape, const std::vector<int64_t>& perm) {
    Shape out(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) out[i] = shape[perm[i]];
    return out;
}

/// Output axis i is input axis perm[i].
Tensor transposed(const Tensor& input, const std::vector<int64_t>& perm) {
    const Shape shape = permutedShape(input.shape, perm);
    const std::vector<int64_t> strides = rowMajorStrides(input.shape);
    std::vector<int64_t> sources;
    sources.reserve(static_cast<size_t>(elementCount(shape)));
    forEachPosition(shape, [&](const std::vector<int64_t>& position) {
        int64_t source = 0;
        for (size_t i = 0; i < perm.size(); ++i) source += position[i] * strides[perm[i]];
        sources.push_back(source);
    });
    return takeElements(input, shape, sources);
}

/// The block ops' view of an NCHW input: the 6-D shape it is read as, the permutation and the
/// 4-D output shape.
struct BlockLayout {
    Shape view;
    std::vector<int64_t> perm;
    Shape output;
};

/// The strided copy that reads `input` (of `shape`) with its axes permuted.
StridedCopy permutedCopy(const Shape& shape, const std::vector<int64_t>& perm) {
    const std::vector<int64_t> strides = rowMajorStrides(shape);
    StridedCopy copy;
    copy.dims = permutedShape(shape, perm);
    copy.outputStrides = rowMajorStrides(copy.dims);
    for (int64_t axis : perm) copy.inputStrides.push_back(strides[axis]);
    return copy;
}

BlockLayout blockLayout(const Node& node, const Shape& input) {
    if (input.size() != 4) opError(node, "input must be 4-D (NCHW), got " + shapeString(input));
    const int64_t block = node.intAttr("blocksize", 0);
    if (block <= 0) opError(node, "blocksize must be positive, got " + std::to_string(block));
    const int64_t n = input[0], c = input[1], h = input[2], w = input[3];
    if (node.kind == OpKind::SpaceToDepth) {
        if (h % block != 0 || w % block != 0) {
            opError(node, "height and width of " + shapeString(input) +
                              " must be multiples of blocksize " + std::to_string(block));
        }
        return {{n, c, h / block, block, w / block, block},
                {0, 3, 5, 1, 2, 4},
                {n, c * block * block, h / block, w / block}};
    }
    if (c % (block * block) != 0) {
        opError(node, "channels of " + shapeString(input) +
                          " must be a multiple of blocksize^2 = " + std::to_string(block * block));
    }
    const int64_t depth = c / (block * block);
    const Shape output = {n, depth, h * block, w * block};
    const std::string mode = stringAttr(node, "mode", "DCR");
    if (mode == "DCR") return {{n, block, block, depth, h, w}, {0, 3, 4, 1, 5, 2}, output};
    if (mode == "CRD") return {{n, depth, block, block, h, w}, {0, 1, 4, 2, 5, 3}, output};
    opError(node, "mode '" + mode + "' is not DCR or CRD");
}

}  // namespace

void inferTranspose(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    setOutput(graph, node, data.dtype,
              permutedShape(data.shape, permutation(node, data.shape.size())));
}

std::vector<Tensor> interpretTranspose(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    return {transposed(data, permutation(node, data.shape.size()))};
}

void inferBlockPermute(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    setOutput(graph, node, data.dtype, blockLayout(node, data.shape).output);
}

std::vector<Tensor> interpretBlockPermute(const Node& node, std::span<const Tensor* const> inputs) {
    const BlockLayout layout = blockLayout(node, inputs[0]->shape);
    Tensor view = *inputs[0];
    view.shape = layout.view;
    Tensor out = transposed(view, layout.perm);
    out.shape = layout.output;
    return {std::move(out)};
}

std::vector<StridedCopy> transposeCopies(const Graph& graph, const Node& node) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    return {permutedCopy(shape, permutation(node, shape.size()))};
}

std::vector<StridedCopy> blockPermuteCopies(const Graph& graph, const Node& node) {
    const BlockLayout layout = blockLayout(node, graph.value(node.inputs[0]).shape);
    return {permutedCopy(layout.view, layout.perm)};
}

}  // namespace npusim::compiler::ops
