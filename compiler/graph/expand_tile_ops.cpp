// Expand and Tile: a tensor repeated to a larger shape, by numpy broadcasting against a shape
// (Expand) or by whole copies along each axis (Tile).
#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

Shape tiledShape(const Node& node, const Shape& input, const std::vector<int64_t>& repeats) {
    if (repeats.size() != input.size()) {
        opError(node, "repeats " + shapeString(repeats) + " must have one entry per axis of " +
                          shapeString(input));
    }
    Shape out(input.size());
    for (size_t i = 0; i < input.size(); ++i) {
        if (repeats[i] < 0) {
            opError(node, "repeats " + shapeString(repeats) + " has a negative entry");
        }
        out[i] = input[i] * repeats[i];
    }
    return out;
}

}  // namespace

void inferExpand(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& input = graph.value(node.inputs[0]);
    const std::vector<int64_t> shape = constantInts(graph, node, 1, "shape");
    setOutput(graph, node, input.dtype, broadcastShapes(node, input.shape, shape));
}

std::vector<Tensor> interpretExpand(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& input = *inputs[0];
    const Shape shape = broadcastShapes(node, input.shape, integerValues(*inputs[1]));
    return {takeElements(input, shape, broadcastSourceIndices(input.shape, shape))};
}

void inferTile(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& input = graph.value(node.inputs[0]);
    const std::vector<int64_t> repeats = constantInts(graph, node, 1, "repeats");
    setOutput(graph, node, input.dtype, tiledShape(node, input.shape, repeats));
}

std::vector<Tensor> interpretTile(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& input = *inputs[0];
    const Shape shape = tiledShape(node, input.shape, integerValues(*inputs[1]));
    const std::vector<int64_t> strides = rowMajorStrides(input.shape);
    std::vector<int64_t> sources;
    sources.reserve(static_cast<size_t>(elementCount(shape)));
    forEachPosition(shape, [&](const std::vector<int64_t>& position) {
        int64_t source = 0;
        for (size_t i = 0; i < position.size(); ++i) {
            source += position[i] % input.shape[i] * strides[i];
        }
        sources.push_back(source);
    });
    return {takeElements(input, shape, sources)};
}

std::vector<StridedCopy> expandCopies(const Graph& graph, const Node& node) {
    const Shape& out = graph.value(node.outputs[0]).shape;
    return {{0, 0, out, 0, 0, broadcastStrides(graph.value(node.inputs[0]).shape, out.size()), rowMajorStrides(out), std::nullopt}};
}

std::vector<StridedCopy> tileCopies(const Graph& graph, const Node& node) {
    // Each axis of size d repeated r times is two dims: the repeat (the output stepping a
    // whole copy, the input not moving) and the index within the copy.
    const Shape& input = graph.value(node.inputs[0]).shape;
    const Shape& out = graph.value(node.outputs[0]).shape;
    const std::vector<int64_t> inStrides = rowMajorStrides(input), outStrides = rowMajorStrides(out);
    StridedCopy copy;
    for (size_t axis = 0; axis < input.size(); ++axis) {
        const int64_t repeats = input[axis] == 0 ? 0 : out[axis] / input[axis];
        copy.dims.insert(copy.dims.end(), {repeats, input[axis]});
        copy.inputStrides.insert(copy.inputStrides.end(), {0, inStrides[axis]});
        copy.outputStrides.insert(copy.outputStrides.end(), {input[axis] * outStrides[axis], outStrides[axis]});
    }
    return {copy};
}

}  // namespace npusim::compiler::ops
