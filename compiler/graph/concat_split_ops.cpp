// Concat and Split: tensors joined along an axis, and one tensor cut into parts along an axis.
// Both move whole row-major runs: for each index of the axes before `axis`, every part
// contributes (its size along axis) x (product of the dims after axis) contiguous elements.
#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

int64_t product(Shape::const_iterator begin, Shape::const_iterator end) {
    return std::accumulate(begin, end, int64_t{1}, std::multiplies<>());
}

struct ConcatLayout {
    int64_t axis = 0;
    Shape output;
};

/// Concat's axis and output shape; opError unless every input has the first one's dtype and
/// rank and the same dims outside the axis.
ConcatLayout concatLayout(const Node& node, const std::vector<DType>& dtypes,
                          const std::vector<Shape>& shapes) {
    const Shape& first = shapes[0];
    if (first.empty()) opError(node, "inputs must have rank >= 1, got a scalar");
    const int64_t axis =
        normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(first.size()));
    Shape out = first;
    for (size_t i = 1; i < shapes.size(); ++i) {
        if (dtypes[i] != dtypes[0]) {
            opError(node, "input " + std::to_string(i) + " is " +
                              std::string(dtypeName(dtypes[i])) + " but input 0 is " +
                              std::string(dtypeName(dtypes[0])));
        }
        bool fits = shapes[i].size() == first.size();
        for (size_t d = 0; fits && d < first.size(); ++d) {
            fits = static_cast<int64_t>(d) == axis || shapes[i][d] == first[d];
        }
        if (!fits) {
            opError(node, "input " + std::to_string(i) + " " + shapeString(shapes[i]) +
                              " does not fit input 0 " + shapeString(first) + " outside axis " +
                              std::to_string(axis));
        }
        out[axis] += shapes[i][axis];
    }
    return {axis, out};
}

/// Split's part sizes along `axis`: the split input (opset 13+) or attribute (before), else
/// equal parts, one per output.
std::vector<int64_t> splitSizes(const Node& node, const Shape& input, int64_t axis,
                                const std::optional<std::vector<int64_t>>& split) {
    const auto parts = static_cast<int64_t>(node.outputs.size());
    const int64_t dim = input[axis];
    if (!split) {
        if (dim % parts != 0) {
            opError(node, "axis " + std::to_string(axis) + " of " + shapeString(input) +
                              " does not split into " + std::to_string(parts) + " equal parts");
        }
        return std::vector<int64_t>(static_cast<size_t>(parts), dim / parts);
    }
    const bool fits = static_cast<int64_t>(split->size()) == parts &&
                      std::all_of(split->begin(), split->end(), [](int64_t s) { return s >= 0; }) &&
                      std::accumulate(split->begin(), split->end(), int64_t{0}) == dim;
    if (!fits) {
        opError(node, "split " + shapeString(*split) + " must be " + std::to_string(parts) +
                          " non-negative sizes adding up to " + std::to_string(dim) + " (axis " +
                          std::to_string(axis) + " of " + shapeString(input) + ")");
    }
    return *split;
}

int64_t splitAxis(const Node& node, const Shape& input) {
    if (input.empty()) opError(node, "input must have rank >= 1, got a scalar");
    return normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(input.size()));
}

}  // namespace

void inferConcat(Graph& graph, const Node& node) {
    checkArity(graph, node);
    std::vector<DType> dtypes;
    std::vector<Shape> shapes;
    for (ValueId id : node.inputs) {
        dtypes.push_back(graph.value(id).dtype);
        shapes.push_back(graph.value(id).shape);
    }
    setOutput(graph, node, dtypes[0], concatLayout(node, dtypes, shapes).output);
}

std::vector<Tensor> interpretConcat(const Node& node, std::span<const Tensor* const> inputs) {
    std::vector<DType> dtypes;
    std::vector<Shape> shapes;
    for (const Tensor* input : inputs) {
        dtypes.push_back(input->dtype);
        shapes.push_back(input->shape);
    }
    const auto [axis, shape] = concatLayout(node, dtypes, shapes);
    Tensor out = Tensor::zeros(dtypes[0], shape);
    const int64_t outer = product(out.shape.begin(), out.shape.begin() + axis);
    const int64_t inner =
        product(out.shape.begin() + axis + 1, out.shape.end()) * dtypeSize(out.dtype);
    std::byte* cursor = out.bytes.data();
    for (int64_t o = 0; o < outer; ++o) {
        for (const Tensor* input : inputs) {
            const int64_t run = input->shape[axis] * inner;
            if (run == 0) continue;
            std::memcpy(cursor, input->bytes.data() + o * run, static_cast<size_t>(run));
            cursor += run;
        }
    }
    return {std::move(out)};
}

void inferSplit(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& input = graph.value(node.inputs[0]);
    const int64_t axis = splitAxis(node, input.shape);
    const std::vector<int64_t> sizes =
        splitSizes(node, input.shape, axis, intsFromAttributeOrInput(graph, node, "split", 1));
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        Value& output = graph.value(node.outputs[i]);
        output.dtype = input.dtype;
        output.shape = input.shape;
        output.shape[axis] = sizes[i];
    }
}

std::vector<Tensor> interpretSplit(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& input = *inputs[0];
    const int64_t axis = splitAxis(node, input.shape);
    const std::vector<int64_t> sizes =
        splitSizes(node, input.shape, axis, intsFromAttributeOrInput(node, inputs, "split", 1));
    const int64_t outer = product(input.shape.begin(), input.shape.begin() + axis);
    const int64_t inner =
        product(input.shape.begin() + axis + 1, input.shape.end()) * dtypeSize(input.dtype);
    std::vector<Tensor> outputs;
    for (int64_t size : sizes) {
        Shape shape = input.shape;
        shape[axis] = size;
        outputs.push_back(Tensor::zeros(input.dtype, std::move(shape)));
    }
    const std::byte* cursor = input.bytes.data();
    for (int64_t o = 0; o < outer; ++o) {
        for (size_t part = 0; part < sizes.size(); ++part) {
            const int64_t run = sizes[part] * inner;
            if (run == 0) continue;
            std::memcpy(outputs[part].bytes.data() + o * run, cursor, static_cast<size_t>(run));
            cursor += run;
        }
    }
    return outputs;
}

std::vector<StridedCopy> concatCopies(const Graph& graph, const Node& node) {
    const Shape& out = graph.value(node.outputs[0]).shape;
    const int64_t axis = normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(out.size()));
    const std::vector<int64_t> outStrides = rowMajorStrides(out);
    std::vector<StridedCopy> copies;
    int64_t at = 0;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        const Shape& shape = graph.value(node.inputs[i]).shape;
        if (elementCount(shape) != 0) {
            copies.push_back({i, 0, shape, 0, at * outStrides[axis], rowMajorStrides(shape), outStrides, std::nullopt});
        }
        at += shape[axis];
    }
    return copies;
}

std::vector<StridedCopy> splitCopies(const Graph& graph, const Node& node) {
    const Shape& input = graph.value(node.inputs[0]).shape;
    const int64_t axis = splitAxis(node, input);
    const std::vector<int64_t> inStrides = rowMajorStrides(input);
    std::vector<StridedCopy> copies;
    int64_t at = 0;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        const Shape& shape = graph.value(node.outputs[i]).shape;
        if (elementCount(shape) != 0) {
            copies.push_back({0, i, shape, at * inStrides[axis], 0, inStrides, rowMajorStrides(shape), std::nullopt});
        }
        at += shape[axis];
    }
    return copies;
}

}  // namespace npusim::compiler::ops
