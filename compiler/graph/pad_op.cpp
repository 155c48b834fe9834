// Pad: each axis grown (or, for negative pads, cropped) at both ends. Mode constant fills with
// the constant value, edge repeats the border element and reflect mirrors the axis without
// repeating the border. Before opset 11 pads and value are attributes; from opset 11 they are
// inputs 1 and 2, and input 3 (opset 18) lists the padded axes.
#include <algorithm>
#include <cstring>
#include <optional>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

enum class PadMode { Constant, Edge, Reflect };

PadMode padMode(const Node& node) {
    const std::string mode = stringAttr(node, "mode", "constant");
    if (mode == "constant") return PadMode::Constant;
    if (mode == "edge") return PadMode::Edge;
    if (mode == "reflect") return PadMode::Reflect;
    opError(node, "mode '" + mode + "' is not supported (supported: constant, edge, reflect)");
}

/// Per axis: elements added before and after (negative: removed).
struct AxisPads {
    int64_t before = 0, after = 0;
};

/// `pads` ([begin of each listed axis..., end of each listed axis...]) spread over every axis;
/// `axes` lists the padded axes, all of them when absent.
std::vector<AxisPads> axisPads(const Node& node, const Shape& input,
                               const std::vector<int64_t>& pads,
                               const std::optional<std::vector<int64_t>>& axes) {
    const auto rank = static_cast<int64_t>(input.size());
    std::vector<int64_t> listed(input.size());
    for (int64_t i = 0; i < rank; ++i) listed[i] = i;
    if (axes) {
        listed.clear();
        for (int64_t axis : *axes) listed.push_back(normalizeAxis(node, axis, rank, "pad axis"));
    }
    if (pads.size() != 2 * listed.size()) {
        opError(node, "pads " + shapeString(pads) + " must have 2 entries per padded axis (" +
                          std::to_string(2 * listed.size()) + ") for input " + shapeString(input));
    }
    std::vector<AxisPads> result(input.size());
    for (size_t i = 0; i < listed.size(); ++i) {
        result[listed[i]] = {pads[i], pads[i + listed.size()]};
    }
    for (size_t axis = 0; axis < input.size(); ++axis) {
        const int64_t cropped =
            std::max<int64_t>(0, -result[axis].before) + std::max<int64_t>(0, -result[axis].after);
        if (cropped > input[axis]) {
            opError(node, "pads " + shapeString(pads) + " remove more than the " +
                              std::to_string(input[axis]) + " elements of axis " +
                              std::to_string(axis));
        }
    }
    return result;
}

Shape paddedShape(const Shape& input, const std::vector<AxisPads>& pads) {
    Shape out(input.size());
    for (size_t i = 0; i < input.size(); ++i) out[i] = input[i] + pads[i].before + pads[i].after;
    return out;
}

/// Where an index of the padded axis reads the kept part of the input axis (`kept` elements
/// from `first`): the index itself inside it, else per mode; -1 for the constant fill.
int64_t sourceIndex(int64_t index, int64_t first, int64_t kept, PadMode mode) {
    if (index >= 0 && index < kept) return first + index;
    if (mode == PadMode::Constant) return -1;
    if (mode == PadMode::Edge) return first + std::clamp<int64_t>(index, 0, kept - 1);
    if (kept == 1) return first;
    // Reflection repeats with period 2 (kept - 1): 0 1 2 .. kept-1 .. 2 1 0 1 ...
    const int64_t period = 2 * (kept - 1);
    const int64_t phase = ((index % period) + period) % period;
    return first + (phase < kept ? phase : period - phase);
}

/// The fill of mode constant as one element of `dtype`: the constant_value input, the value
/// attribute (before opset 11), or zero.
Tensor fillValue(const Node& node, DType dtype, const Tensor* constantValue) {
    if (constantValue) {
        if (constantValue->dtype != dtype || constantValue->elementCount() != 1) {
            opError(node, "constant_value must be one " + std::string(dtypeName(dtype)) +
                              " element, got " + std::string(dtypeName(constantValue->dtype)) +
                              shapeString(constantValue->shape));
        }
        return *constantValue;
    }
    const double value = node.floatAttr("value", 0.0);
    if (isFloat(dtype)) return floatTensor(dtype, {}, std::vector<double>{value});
    return integerTensor(dtype, {}, std::vector<int64_t>{static_cast<int64_t>(value)});
}

std::vector<int64_t> padsOf(const Node& node, const std::optional<std::vector<int64_t>>& pads) {
    if (!pads) opError(node, "pads are missing (an attribute before opset 11, input 1 from 11)");
    return *pads;
}

/// Per axis, the part of the input the output keeps: `kept` elements from `first` (negative
/// pads crop first; the kept part is then padded).
struct KeptAxis {
    int64_t first = 0, kept = 0;
};

std::vector<KeptAxis> keptAxes(const Node& node, const Shape& input, const std::vector<AxisPads>& pads,
                               PadMode mode) {
    std::vector<KeptAxis> axes(input.size());
    for (size_t axis = 0; axis < input.size(); ++axis) {
        axes[axis].first = std::max<int64_t>(0, -pads[axis].before);
        axes[axis].kept = input[axis] - axes[axis].first - std::max<int64_t>(0, -pads[axis].after);
        const int64_t padded = axes[axis].kept + std::max<int64_t>(0, pads[axis].before) +
                               std::max<int64_t>(0, pads[axis].after);
        if (mode != PadMode::Constant && axes[axis].kept == 0 && padded > 0) {
            opError(node, "cannot pad axis " + std::to_string(axis) +
                              " in mode edge or reflect: it has no elements");
        }
    }
    return axes;
}

/// A run of output indices along one axis: `extent` indices from `start`, reading input
/// indices from `source` in steps of `step`, or the fill when `fill`.
struct AxisSegment {
    int64_t start = 0, extent = 0, source = 0, step = 1;
    bool fill = false;
};

/// The segments of one axis: before the kept part, the kept part, after it. Edge repeats the
/// border (step 0); reflect reads one index per segment, so every segment is affine.
std::vector<AxisSegment> axisSegments(const AxisPads& pads, const KeptAxis& axis, PadMode mode) {
    const int64_t before = std::max<int64_t>(0, pads.before), after = std::max<int64_t>(0, pads.after);
    std::vector<AxisSegment> segments;
    auto border = [&](int64_t start, int64_t extent) {
        if (extent == 0) return;
        if (mode == PadMode::Constant) {
            segments.push_back({start, extent, 0, 1, true});
        } else if (mode == PadMode::Edge) {
            segments.push_back({start, extent, start < before ? axis.first : axis.first + axis.kept - 1, 0, false});
        } else {
            for (int64_t i = start; i < start + extent; ++i) {
                segments.push_back({i, 1, sourceIndex(i - before, axis.first, axis.kept, mode), 1, false});
            }
        }
    };
    border(0, before);
    if (axis.kept > 0) segments.push_back({before, axis.kept, axis.first, 1, false});
    border(before + axis.kept, after);
    return segments;
}

}  // namespace

void inferPad(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    padMode(node);
    const std::vector<int64_t> pads =
        padsOf(node, intsFromAttributeOrInput(graph, node, "pads", 1));
    std::optional<std::vector<int64_t>> axes;
    if (optionalInput(graph, node, 3)) axes = constantInts(graph, node, 3, "axes");
    if (const Value* value = optionalInput(graph, node, 2); value && value->dtype != data.dtype) {
        opError(node, "constant_value is " + std::string(dtypeName(value->dtype)) +
                          " but data is " + std::string(dtypeName(data.dtype)));
    }
    setOutput(graph, node, data.dtype,
              paddedShape(data.shape, axisPads(node, data.shape, pads, axes)));
}

std::vector<Tensor> interpretPad(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& data = *inputs[0];
    const PadMode mode = padMode(node);
    const std::vector<int64_t> pads =
        padsOf(node, intsFromAttributeOrInput(node, inputs, "pads", 1));
    std::optional<std::vector<int64_t>> axes;
    if (inputs.size() > 3 && inputs[3]) axes = integerValues(*inputs[3]);
    const std::vector<AxisPads> axisPadding = axisPads(node, data.shape, pads, axes);
    const Shape shape = paddedShape(data.shape, axisPadding);
    const Tensor fill = fillValue(node, data.dtype, inputs.size() > 2 ? inputs[2] : nullptr);

    const std::vector<KeptAxis> kept = keptAxes(node, data.shape, axisPadding, mode);
    const std::vector<int64_t> strides = rowMajorStrides(data.shape);
    const size_t size = dtypeSize(data.dtype);
    Tensor out = Tensor::zeros(data.dtype, shape);
    std::byte* cursor = out.bytes.data();
    forEachPosition(shape, [&](const std::vector<int64_t>& position) {
        int64_t source = 0;
        for (size_t axis = 0; axis < shape.size() && source >= 0; ++axis) {
            const int64_t index =
                sourceIndex(position[axis] - std::max<int64_t>(0, axisPadding[axis].before),
                            kept[axis].first, kept[axis].kept, mode);
            source = index < 0 ? -1 : source + index * strides[axis];
        }
        const std::byte* from = source < 0 ? fill.bytes.data() : data.bytes.data() + source * size;
        std::memcpy(cursor, from, size);
        cursor += size;
    });
    return {std::move(out)};
}

std::vector<StridedCopy> padCopies(const Graph& graph, const Node& node) {
    const Value& data = graph.value(node.inputs[0]);
    const PadMode mode = padMode(node);
    // A constant fill is written as such; a value given at run time is read, repeated.
    const Value* value = optionalInput(graph, node, 2);
    const bool runtimeValue = value && !value->constant;
    std::optional<std::vector<int64_t>> axes;
    if (optionalInput(graph, node, 3)) axes = constantInts(graph, node, 3, "axes");
    const std::vector<AxisPads> pads =
        axisPads(node, data.shape, padsOf(node, intsFromAttributeOrInput(graph, node, "pads", 1)), axes);
    const std::vector<KeptAxis> kept = keptAxes(node, data.shape, pads, mode);
    const Tensor fill = fillValue(node, data.dtype, value && value->constant ? &*value->constant : nullptr);
    const Shape& out = graph.value(node.outputs[0]).shape;
    const std::vector<int64_t> inStrides = rowMajorStrides(data.shape), outStrides = rowMajorStrides(out);

    // One piece per box of the output: a segment of every axis.
    std::vector<std::vector<AxisSegment>> segments;
    for (size_t axis = 0; axis < out.size(); ++axis) {
        segments.push_back(axisSegments(pads[axis], kept[axis], mode));
        if (segments.back().empty()) return std::vector<StridedCopy>{};  // an empty output
    }
    std::vector<StridedCopy> copies;
    Shape counts;
    for (const auto& list : segments) counts.push_back(static_cast<int64_t>(list.size()));
    forEachPosition(counts, [&](const std::vector<int64_t>& choice) {
        StridedCopy copy{0, 0, {}, 0, 0, {}, outStrides, std::nullopt};
        bool fills = false;
        for (size_t axis = 0; axis < out.size(); ++axis) {
            const AxisSegment& segment = segments[axis][static_cast<size_t>(choice[axis])];
            copy.dims.push_back(segment.extent);
            copy.outputOffset += segment.start * outStrides[axis];
            copy.inputOffset += segment.source * inStrides[axis];
            copy.inputStrides.push_back(segment.step * inStrides[axis]);
            fills = fills || segment.fill;
        }
        if (fills) {
            if (runtimeValue) {
                copy.input = 2;
            } else {
                copy.fill = fill;
            }
            copy.inputOffset = 0;
            copy.inputStrides.assign(out.size(), 0);
        }
        copies.push_back(std::move(copy));
    });
    return copies;
}

}  // namespace npusim::compiler::ops
