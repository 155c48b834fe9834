// Reshape, Flatten, Squeeze and Unsqueeze: the same row-major elements under a new shape.
#include <algorithm>
#include <optional>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

Tensor withShape(const Tensor& data, Shape shape) {
    Tensor out = data;
    out.shape = std::move(shape);
    return out;
}

/// Reshape's output: `requested` with 0 copying the input dim at that index (unless allowzero)
/// and one -1 inferred from the element count.
Shape reshapeTarget(const Node& node, const Shape& input, const std::vector<int64_t>& requested) {
    const bool allowZero = node.intAttr("allowzero", 0) != 0;
    Shape out(requested.size());
    std::optional<size_t> inferred;
    int64_t known = 1;
    for (size_t i = 0; i < requested.size(); ++i) {
        int64_t dim = requested[i];
        if (dim == -1) {
            if (inferred) {
                opError(node, "shape " + shapeString(requested) + " has more than one -1");
            }
            inferred = i;
            continue;
        }
        if (dim == 0 && !allowZero) {
            if (i >= input.size()) {
                opError(node, "shape " + shapeString(requested) + " copies dimension " +
                                  std::to_string(i) + " (0), but the input " + shapeString(input) +
                                  " has rank " + std::to_string(input.size()));
            }
            dim = input[i];
        }
        if (dim < 0) {
            opError(node, "shape " + shapeString(requested) + " has the negative dimension " +
                              std::to_string(dim));
        }
        out[i] = dim;
        known *= dim;
    }
    const int64_t count = elementCount(input);
    if (inferred) {
        if (known == 0 || count % known != 0) {
            opError(node, "cannot infer the -1 of shape " + shapeString(requested) +
                              " for an input " + shapeString(input) + " of " +
                              std::to_string(count) + " elements");
        }
        out[*inferred] = count / known;
    }
    if (elementCount(out) != count) {
        opError(node, "cannot reshape " + shapeString(input) + " (" + std::to_string(count) +
                          " elements) to " + shapeString(out) + " (" +
                          std::to_string(elementCount(out)) + " elements)");
    }
    return out;
}

/// Flatten's output: [product of the dims before `axis`, product of the others].
Shape flattenShape(const Node& node, const Shape& input) {
    const auto rank = static_cast<int64_t>(input.size());
    int64_t axis = node.intAttr("axis", 1);
    if (axis < -rank || axis > rank) {
        opError(node, "axis " + std::to_string(axis) + " is out of range [" +
                          std::to_string(-rank) + ", " + std::to_string(rank) + "] for input " +
                          shapeString(input));
    }
    if (axis < 0) axis += rank;
    return {elementCount(Shape(input.begin(), input.begin() + axis)),
            elementCount(Shape(input.begin() + axis, input.end()))};
}

/// The axes made non-negative for `rank`; opError for one out of range or given twice.
std::vector<int64_t> distinctAxes(const Node& node, const std::vector<int64_t>& axes,
                                  int64_t rank) {
    std::vector<int64_t> normalized;
    for (int64_t axis : axes) {
        if (axis < -rank || axis >= rank) {
            opError(node, "axis " + std::to_string(axis) + " is out of range for rank " +
                              std::to_string(rank));
        }
        const int64_t value = axis < 0 ? axis + rank : axis;
        if (std::find(normalized.begin(), normalized.end(), value) != normalized.end()) {
            opError(node,
                    "axes " + shapeString(axes) + " name axis " + std::to_string(value) + " twice");
        }
        normalized.push_back(value);
    }
    return normalized;
}

/// Squeeze's output: the input without the listed size-1 axes, or without every size-1 axis
/// when no axes are given.
Shape squeezeShape(const Node& node, const Shape& input,
                   const std::optional<std::vector<int64_t>>& axes) {
    const auto rank = static_cast<int64_t>(input.size());
    std::vector<bool> removed(input.size());
    if (axes) {
        for (int64_t axis : distinctAxes(node, *axes, rank)) {
            if (input[axis] != 1) {
                opError(node, "cannot squeeze axis " + std::to_string(axis) + " of " +
                                  shapeString(input) + ": its size is " +
                                  std::to_string(input[axis]) + ", not 1");
            }
            removed[axis] = true;
        }
    } else {
        for (size_t i = 0; i < input.size(); ++i) removed[i] = input[i] == 1;
    }
    Shape out;
    for (size_t i = 0; i < input.size(); ++i) {
        if (!removed[i]) out.push_back(input[i]);
    }
    return out;
}

/// Unsqueeze's output: size-1 axes inserted at the listed positions of the output.
Shape unsqueezeShape(const Node& node, const Shape& input,
                     const std::optional<std::vector<int64_t>>& axes) {
    if (!axes) {
        opError(node, "axes are missing (an attribute before opset 13, input 1 from opset 13)");
    }
    const auto rank = static_cast<int64_t>(input.size() + axes->size());
    std::vector<bool> inserted(static_cast<size_t>(rank));
    for (int64_t axis : distinctAxes(node, *axes, rank)) inserted[axis] = true;
    Shape out;
    auto next = input.begin();
    for (int64_t i = 0; i < rank; ++i) out.push_back(inserted[i] ? 1 : *next++);
    return out;
}

}  // namespace

void inferReshape(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    const std::vector<int64_t> requested = constantInts(graph, node, 1, "shape");
    setOutput(graph, node, data.dtype, reshapeTarget(node, data.shape, requested));
}

std::vector<Tensor> interpretReshape(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    return {withShape(data, reshapeTarget(node, data.shape, integerValues(*inputs[1])))};
}

void inferFlatten(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    setOutput(graph, node, data.dtype, flattenShape(node, data.shape));
}

std::vector<Tensor> interpretFlatten(const Node& node, std::span<const Tensor* const> inputs) {
    return {withShape(*inputs[0], flattenShape(node, inputs[0]->shape))};
}

void inferSqueeze(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    setOutput(graph, node, data.dtype,
              squeezeShape(node, data.shape, intsFromAttributeOrInput(graph, node, "axes", 1)));
}

std::vector<Tensor> interpretSqueeze(const Node& node, std::span<const Tensor* const> inputs) {
    return {withShape(*inputs[0], squeezeShape(node, inputs[0]->shape,
                                               intsFromAttributeOrInput(node, inputs, "axes", 1)))};
}

void inferUnsqueeze(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    setOutput(graph, node, data.dtype,
              unsqueezeShape(node, data.shape, intsFromAttributeOrInput(graph, node, "axes", 1)));
}

std::vector<Tensor> interpretUnsqueeze(const Node& node, std::span<const Tensor* const> inputs) {
    return {withShape(
        *inputs[0],
        unsqueezeShape(node, inputs[0]->shape, intsFromAttributeOrInput(node, inputs, "axes", 1)))};
}

}  // namespace npusim::compiler::ops
