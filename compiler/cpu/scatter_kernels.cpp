// CPU kernels of the index-tuple and scatter ops: ScatterElements (and Scatter) and ScatterND
// copy the data to the output and then write, or combine, each update in index order; GatherND
// copies the slice each index tuple picks; MaxUnpool zeroes the output and writes each value
// where its index points. Indices are checked (IndexOutOfRange) and may count
// from the back.
#include "compiler/cpu/kernel_support.h"
#include "compiler/graph/op_attributes.h"
#include "compiler/graph/op_support.h"

namespace npusim::compiler::cpu {
namespace {

/// Copies data (input 0) into the output and binds the indices and updates: the buffers of
/// a scatter, in argument order.
struct ScatterBuffers {
    uint32_t data, indices, updates, out;
};

ScatterBuffers bindScatter(const Graph& graph, const Node& node, Bound& k) {
    ScatterBuffers s{k.bind(graph, node.inputs[0], false), k.bind(graph, node.inputs[1], false),
                     k.bind(graph, node.inputs[2], false), k.bind(graph, node.outputs[0], true)};
    KernelBuilder& b = k.builder;
    b.loop(elementCount(graph.value(node.inputs[0]).shape), [&](V i) { b.store(s.out, i, b.load(s.data, i)); });
    return s;
}

/// Writes `update` to out[target] or combines it with what is there.
void scatterOne(KernelBuilder& b, uint32_t out, V target, V update, ops::ScatterReduction reduction) {
    switch (reduction) {
        case ops::ScatterReduction::None: b.store(out, target, update); return;
        case ops::ScatterReduction::Add: b.store(out, target, b.add(b.load(out, target), update)); return;
        case ops::ScatterReduction::Mul: b.store(out, target, b.mul(b.load(out, target), update)); return;
        case ops::ScatterReduction::Max: b.store(out, target, b.binary(BinaryOp::Max, b.load(out, target), update)); return;
        case ops::ScatterReduction::Min: b.store(out, target, b.binary(BinaryOp::Min, b.load(out, target), update)); return;
    }
}

/// The flat offset of index tuple `tuple` (`depth` indices from flat position tuple * depth),
/// each checked against dims[first + j] and weighted by strides[first + j].
V tupleOffset(KernelBuilder& b, uint32_t indices, V tuple, int64_t depth, const Shape& dims,
              const std::vector<int64_t>& strides, size_t first) {
    const uint32_t offset = b.local(b.integer(0));
    for (int64_t j = 0; j < depth; ++j) {
        const size_t dim = first + static_cast<size_t>(j);
        const V index = checkedIndex(b, b.load(indices, b.affine(tuple, depth, b.integer(j))), dims[dim]);
        b.set(offset, b.affine(index, strides[dim], b.get(offset)));
    }
    return b.get(offset);
}

}  // namespace

HostKernel scatterElements(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const Shape& indexShape = graph.value(node.inputs[1]).shape;
    const auto axis = static_cast<size_t>(ops::normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(shape.size())));
    const ops::ScatterReduction reduction = ops::scatterReduction(node);
    KernelBuilder& b = k.builder;
    const ScatterBuffers s = bindScatter(graph, node, k);
    const std::vector<int64_t> dataStrides = ops::rowMajorStrides(shape), indexStrides = ops::rowMajorStrides(indexShape);
    std::vector<int64_t> across = dataStrides;
    across[axis] = 0;
    forEachPosition(b, indexShape, [&](const std::vector<V>& p) {
        const V flat = linear(b, p, indexStrides);
        const V index = checkedIndex(b, b.load(s.indices, flat), shape[axis]);
        scatterOne(b, s.out, b.affine(index, dataStrides[axis], linear(b, p, across)), b.load(s.updates, flat), reduction);
    });
    return k.finish();
}

HostKernel scatterNd(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const Shape& indexShape = graph.value(node.inputs[1]).shape;
    const int64_t depth = indexShape.back();
    const int64_t slice = elementCount(Shape(shape.begin() + depth, shape.end()));
    const ops::ScatterReduction reduction = ops::scatterReduction(node);
    KernelBuilder& b = k.builder;
    const ScatterBuffers s = bindScatter(graph, node, k);
    const std::vector<int64_t> strides = ops::rowMajorStrides(shape);
    b.loop(elementCount(indexShape) / depth, [&](V tuple) {
        const uint32_t base = b.local(tupleOffset(b, s.indices, tuple, depth, shape, strides, 0));
        b.loop(slice, [&](V e) {
            scatterOne(b, s.out, b.add(b.get(base), e), b.load(s.updates, b.affine(tuple, slice, e)), reduction);
        });
    });
    return k.finish();
}

HostKernel gatherNd(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const Shape& indexShape = graph.value(node.inputs[1]).shape;
    const auto batch = static_cast<size_t>(node.intAttr("batch_dims", 0));
    const int64_t depth = indexShape.back();
    const int64_t batches = elementCount(Shape(shape.begin(), shape.begin() + static_cast<int64_t>(batch)));
    const int64_t tuples = elementCount(indexShape) / depth / batches;
    const int64_t slice = elementCount(Shape(shape.begin() + static_cast<int64_t>(batch) + depth, shape.end()));
    const int64_t batchStride = elementCount(Shape(shape.begin() + static_cast<int64_t>(batch), shape.end()));
    KernelBuilder& b = k.builder;
    const uint32_t data = k.bind(graph, node.inputs[0], false), indices = k.bind(graph, node.inputs[1], false);
    const uint32_t out = k.bind(graph, node.outputs[0], true);
    const std::vector<int64_t> strides = ops::rowMajorStrides(shape);
    b.loop(batches, [&](V entry) {
        b.loop(tuples, [&](V t) {
            const V tuple = b.affine(entry, tuples, t);
            const uint32_t base = b.local(b.affine(entry, batchStride, tupleOffset(b, indices, tuple, depth, shape, strides, batch)));
            b.loop(slice, [&](V e) { b.store(out, b.affine(tuple, slice, e), b.load(data, b.add(b.get(base), e))); });
        });
    });
    return k.finish();
}

HostKernel maxUnpool(const Graph& graph, const Node& node, Bound& k) {
    const Shape unpooled = ops::maxUnpoolShape(node, graph.value(node.inputs[0]).shape);
    const Shape& shape = graph.value(node.outputs[0]).shape;
    const std::vector<int64_t> unpooledStrides = ops::rowMajorStrides(unpooled), strides = ops::rowMajorStrides(shape);
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), indices = k.bind(graph, node.inputs[1], false);
    const uint32_t y = k.bind(graph, node.outputs[0], true);
    b.loop(elementCount(shape), [&](V i) { b.store(y, i, b.real(0)); });
    b.loop(elementCount(graph.value(node.inputs[0]).shape), [&](V i) {
        const uint32_t index = b.local(b.load(indices, i));
        b.when(b.binary(BinaryOp::Or, b.compare(ComparePredicate::Lt, b.get(index), b.integer(0)),
                        b.compare(ComparePredicate::Ge, b.get(index), b.integer(elementCount(unpooled)))),
               [&] { b.fail(KernelStatus::IndexOutOfRange); });
        V target = b.integer(0);
        for (size_t d = 0; d < unpooled.size(); ++d) {
            const V coordinate = b.binary(BinaryOp::Rem, b.binary(BinaryOp::Div, b.get(index), b.integer(unpooledStrides[d])),
                                          b.integer(unpooled[d]));
            target = b.affine(coordinate, strides[d], target);
        }
        b.store(y, target, b.load(x, i));
    });
    return k.finish();
}

}  // namespace npusim::compiler::cpu
