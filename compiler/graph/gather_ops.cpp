// Gather and GatherElements: elements picked along an axis by an index tensor (int32 or int64;
// a negative index counts from the back of the axis); GatherND: slices picked by index tuples,
// within each of the leading batch_dims entries.
#include <algorithm>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// Gather's output: data's dims before the axis, the indices' dims, data's dims after the axis.
Shape gatherShape(const Node& node, const Shape& data, const Shape& indices) {
    const int64_t axis = gatherAxis(node, data);
    Shape out(data.begin(), data.begin() + axis);
    out.insert(out.end(), indices.begin(), indices.end());
    out.insert(out.end(), data.begin() + axis + 1, data.end());
    return out;
}

void requireIndices(const Node& node, DType dtype) {
    requireDType(node, "indices", dtype, {DType::Int32, DType::Int64});
}

/// GatherND's output: indices' dims but the last, then data's dims after the batch dims and the
/// indexed ones; the batch dims of data and indices must agree.
Shape gatherNdShape(const Node& node, const Shape& data, const Shape& indices) {
    const int64_t batch = node.intAttr("batch_dims", 0), rank = static_cast<int64_t>(data.size());
    if (indices.empty()) opError(node, "indices must have rank >= 1, got a scalar");
    const int64_t depth = indices.back();
    if (batch < 0 || batch >= std::min<int64_t>(rank, static_cast<int64_t>(indices.size()))) {
        opError(node, "batch_dims " + std::to_string(batch) + " must be below the ranks of data and indices");
    }
    if (depth < 1 || batch + depth > rank) {
        opError(node, "indices " + shapeString(indices) + " index " + std::to_string(depth) + " dims, but data " +
                          shapeString(data) + " has " + std::to_string(rank - batch) + " after its batch dims");
    }
    if (!std::equal(data.begin(), data.begin() + batch, indices.begin())) {
        opError(node, "the batch dims of data " + shapeString(data) + " and indices " + shapeString(indices) + " differ");
    }
    Shape out(indices.begin(), indices.end() - 1);
    out.insert(out.end(), data.begin() + batch + depth, data.end());
    return out;
}

}  // namespace

void checkElementIndices(const Node& node, const Shape& data, const Shape& indices) {
    const int64_t axis = gatherAxis(node, data);
    bool fits = indices.size() == data.size();
    for (size_t d = 0; fits && d < data.size(); ++d) {
        fits = static_cast<int64_t>(d) == axis || indices[d] <= data[d];
    }
    if (!fits) {
        opError(node, "indices " + shapeString(indices) + " must have the rank of data " +
                          shapeString(data) + " and no larger dims outside axis " +
                          std::to_string(axis));
    }
}

void inferGatherNd(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    const Value& indices = graph.value(node.inputs[1]);
    requireIndices(node, indices.dtype);
    setOutput(graph, node, data.dtype, gatherNdShape(node, data.shape, indices.shape));
}

std::vector<Tensor> interpretGatherNd(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    requireIndices(node, indices.dtype);
    const Shape shape = gatherNdShape(node, data.shape, indices.shape);
    const int64_t batch = node.intAttr("batch_dims", 0), depth = indices.shape.back();
    const int64_t batches = elementCount(Shape(data.shape.begin(), data.shape.begin() + batch));
    const int64_t tuples = indices.elementCount() / depth / std::max<int64_t>(batches, 1);
    const int64_t slice = elementCount(Shape(data.shape.begin() + batch + depth, data.shape.end()));
    const std::vector<int64_t> strides = rowMajorStrides(data.shape), values = integerValues(indices);
    std::vector<int64_t> sources;
    sources.reserve(static_cast<size_t>(elementCount(shape)));
    for (int64_t b = 0; b < batches; ++b) {
        for (int64_t t = 0; t < tuples; ++t) {
            int64_t base = batch > 0 ? b * strides[batch - 1] : 0;
            for (int64_t j = 0; j < depth; ++j) {
                base += checkedIndex(node, values[(b * tuples + t) * depth + j], data.shape[batch + j], batch + j) *
                        strides[batch + j];
            }
            for (int64_t s = 0; s < slice; ++s) sources.push_back(base + s);
        }
    }
    return {takeElements(data, shape, sources)};
}

void inferGather(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    const Value& indices = graph.value(node.inputs[1]);
    requireIndices(node, indices.dtype);
    setOutput(graph, node, data.dtype, gatherShape(node, data.shape, indices.shape));
}

std::vector<Tensor> interpretGather(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    requireIndices(node, indices.dtype);
    const Shape shape = gatherShape(node, data.shape, indices.shape);
    const int64_t axis = gatherAxis(node, data.shape);
    const int64_t size = data.shape[axis];
    const int64_t inner = rowMajorStrides(data.shape)[axis];
    const int64_t outer = elementCount(Shape(data.shape.begin(), data.shape.begin() + axis));
    std::vector<int64_t> rows;
    for (int64_t index : integerValues(indices)) {
        rows.push_back(checkedIndex(node, index, size, axis));
    }
    std::vector<int64_t> sources;
    sources.reserve(static_cast<size_t>(elementCount(shape)));
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t row : rows) {
            for (int64_t i = 0; i < inner; ++i) sources.push_back((o * size + row) * inner + i);
        }
    }
    return {takeElements(data, shape, sources)};
}

std::optional<std::vector<StridedCopy>> gatherCopies(const Graph& graph, const Node& node) {
    const Value& indices = graph.value(node.inputs[1]);
    if (!indices.constant) return std::nullopt;
    const Shape& data = graph.value(node.inputs[0]).shape;
    const int64_t axis = gatherAxis(node, data);
    const std::vector<int64_t> strides = rowMajorStrides(data);
    // The output read as [data's dims before axis, one dim per index, data's dims after].
    Shape out(data.begin(), data.begin() + axis);
    out.push_back(elementCount(indices.shape));
    out.insert(out.end(), data.begin() + axis + 1, data.end());
    const std::vector<int64_t> outStrides = rowMajorStrides(out);
    std::vector<int64_t> rows;
    for (int64_t index : integerValues(*indices.constant)) rows.push_back(checkedIndex(node, index, data[axis], axis));
    // One copy per run of consecutive indices reading consecutive rows.
    std::vector<StridedCopy> copies;
    for (size_t first = 0; first < rows.size();) {
        size_t end = first + 1;
        while (end < rows.size() && rows[end] == rows[end - 1] + 1) ++end;
        StridedCopy copy{0, 0, data, rows[first] * strides[axis], static_cast<int64_t>(first) * outStrides[axis],
                         strides, outStrides, std::nullopt};
        copy.dims[axis] = static_cast<int64_t>(end - first);
        if (elementCount(copy.dims) != 0) copies.push_back(std::move(copy));
        first = end;
    }
    return copies;
}

void inferGatherElements(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    const Value& indices = graph.value(node.inputs[1]);
    requireIndices(node, indices.dtype);
    checkElementIndices(node, data.shape, indices.shape);
    setOutput(graph, node, data.dtype, indices.shape);
}

std::vector<Tensor> interpretGatherElements(const Node& node,
                                            std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    requireIndices(node, indices.dtype);
    checkElementIndices(node, data.shape, indices.shape);
    const auto axis = static_cast<size_t>(gatherAxis(node, data.shape));
    const std::vector<int64_t> strides = rowMajorStrides(data.shape);
    const std::vector<int64_t> values = integerValues(indices);
    std::vector<int64_t> sources;
    sources.reserve(values.size());
    forEachPosition(indices.shape, [&](const std::vector<int64_t>& position) {
        int64_t source = 0;
        for (size_t d = 0; d < position.size(); ++d) {
            const int64_t index = d == axis ? checkedIndex(node, values[sources.size()],
                                                           data.shape[d], static_cast<int64_t>(d))
                                            : position[d];
            source += index * strides[d];
        }
        sources.push_back(source);
    });
    return {takeElements(data, indices.shape, sources)};
}

}  // namespace npusim::compiler::ops
