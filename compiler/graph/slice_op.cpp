// Slice: a strided window of each listed axis, with ONNX's clamping of starts and ends and
// negative steps walking backwards. Opset 1 gives starts, ends and axes as attributes; from
// opset 10 they and steps are inputs 1-4.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

struct SliceOperands {
    std::vector<int64_t> starts, ends;
    std::optional<std::vector<int64_t>> axes, steps;
};

/// Per input axis: the first index read, the step and how many indices are read.
struct AxisWindow {
    int64_t start = 0, step = 1, size = 0;
};

/// The window along an axis of size `dim` for ONNX's start, end and step: negative start and
/// end count from the back, then both are clamped to the axis ([0, dim] going forwards,
/// [-1, dim - 1] backwards).
AxisWindow axisWindow(int64_t start, int64_t end, int64_t step, int64_t dim) {
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    if (dim == 0) return {0, step, 0};
    if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
        return {start, step, end > start ? (end - start - 1) / step + 1 : 0};
    }
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    // Any step of magnitude >= dim reads one element: INT64_MAX stands in for -INT64_MIN.
    const int64_t magnitude = step == INT64_MIN ? INT64_MAX : -step;
    return {start, step, start > end ? (start - end - 1) / magnitude + 1 : 0};
}

std::vector<AxisWindow> sliceWindows(const Node& node, const Shape& input,
                                     const SliceOperands& operands) {
    const size_t count = operands.starts.size();
    const auto rank = static_cast<int64_t>(input.size());
    const auto sameCount = [&](const std::optional<std::vector<int64_t>>& list) {
        return !list || list->size() == count;
    };
    if (operands.ends.size() != count || !sameCount(operands.axes) || !sameCount(operands.steps)) {
        opError(node, "starts, ends, axes and steps must have the same length; starts has " +
                          std::to_string(count) + ", ends " + std::to_string(operands.ends.size()));
    }
    std::vector<AxisWindow> windows(input.size());
    std::vector<bool> sliced(input.size());
    for (size_t axis = 0; axis < input.size(); ++axis) windows[axis] = {0, 1, input[axis]};
    for (size_t i = 0; i < count; ++i) {
        const int64_t axis = normalizeAxis(
            node, operands.axes ? (*operands.axes)[i] : static_cast<int64_t>(i), rank);
        if (axis >= rank) opError(node, "cannot slice a scalar");
        if (sliced[axis]) opError(node, "axis " + std::to_string(axis) + " is sliced twice");
        sliced[axis] = true;
        const int64_t step = operands.steps ? (*operands.steps)[i] : 1;
        if (step == 0) opError(node, "steps must not be 0 (axis " + std::to_string(axis) + ")");
        windows[axis] = axisWindow(operands.starts[i], operands.ends[i], step, input[axis]);
    }
    return windows;
}

Shape windowShape(const std::vector<AxisWindow>& windows) {
    Shape shape;
    for (const AxisWindow& window : windows) shape.push_back(window.size);
    return shape;
}

/// Opset 1's attributes, when the node has them.
std::optional<SliceOperands> attributeOperands(const Node& node) {
    if (!node.attributes.contains("starts")) return std::nullopt;
    SliceOperands operands{intListAttr(node, "starts"), intListAttr(node, "ends"), std::nullopt,
                           std::nullopt};
    if (node.attributes.contains("axes")) operands.axes = intListAttr(node, "axes");
    return operands;
}

/// The operands from the attributes or from the constant inputs.
SliceOperands graphOperands(const Graph& graph, const Node& node) {
    if (std::optional<SliceOperands> operands = attributeOperands(node)) return *operands;
    if (node.inputs.size() < 3) {
        opError(node, "needs starts and ends (inputs 1 and 2, or attributes before opset 10)");
    }
    SliceOperands operands{constantInts(graph, node, 1, "starts"), constantInts(graph, node, 2, "ends"),
                           std::nullopt, std::nullopt};
    if (optionalInput(graph, node, 3)) operands.axes = constantInts(graph, node, 3, "axes");
    if (optionalInput(graph, node, 4)) operands.steps = constantInts(graph, node, 4, "steps");
    return operands;
}

}  // namespace

void inferSlice(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    setOutput(graph, node, data.dtype, windowShape(sliceWindows(node, data.shape, graphOperands(graph, node))));
}

std::vector<StridedCopy> sliceCopies(const Graph& graph, const Node& node) {
    const Shape& data = graph.value(node.inputs[0]).shape;
    const std::vector<AxisWindow> windows = sliceWindows(node, data, graphOperands(graph, node));
    const std::vector<int64_t> strides = rowMajorStrides(data);
    StridedCopy copy;
    copy.dims = windowShape(windows);
    copy.outputStrides = rowMajorStrides(copy.dims);
    for (size_t axis = 0; axis < windows.size(); ++axis) {
        copy.inputOffset += windows[axis].start * strides[axis];
        copy.inputStrides.push_back(windows[axis].step * strides[axis]);
    }
    return {copy};
}

std::vector<Tensor> interpretSlice(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    std::optional<SliceOperands> operands = attributeOperands(node);
    if (!operands) {
        const auto listAt = [&](size_t index) -> std::optional<std::vector<int64_t>> {
            if (index >= inputs.size() || inputs[index] == nullptr) return std::nullopt;
            return integerValues(*inputs[index]);
        };
        if (inputs.size() < 3) opError(node, "needs starts and ends (inputs 1 and 2)");
        operands = SliceOperands{integerValues(*inputs[1]), integerValues(*inputs[2]), listAt(3),
                                 listAt(4)};
    }
    const std::vector<AxisWindow> windows = sliceWindows(node, data.shape, *operands);
    const Shape shape = windowShape(windows);
    const std::vector<int64_t> strides = rowMajorStrides(data.shape);
    std::vector<int64_t> sources;
    sources.reserve(static_cast<size_t>(elementCount(shape)));
    forEachPosition(shape, [&](const std::vector<int64_t>& position) {
        int64_t source = 0;
        for (size_t axis = 0; axis < windows.size(); ++axis) {
            source += (windows[axis].start + position[axis] * windows[axis].step) * strides[axis];
        }
        sources.push_back(source);
    });
    return {takeElements(data, shape, sources)};
}

}  // namespace npusim::compiler::ops
