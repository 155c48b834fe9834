// npusim.Im2Col, an op of the compiler's own (the frontend never imports it): the patches a
// convolution reads, one row per (input channel, kernel tap) and one column per (batch,
// output position), so that a convolution becomes a GEMM of its weights with these columns.
// Taps in the padding read zero. Attributes: the convolution's window attributes (strides,
// dilations, pads, auto_pad), kernel_shape, and the input channels read, channel_begin and
// channels (one group of a grouped convolution).
#include <algorithm>
#include <cstring>

#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/window_geometry.h"

namespace npusim::compiler::ops {
namespace {

struct Im2ColShape {
    int64_t batch = 0, channelBegin = 0, channels = 0;
    WindowGeometry window;
    Shape output;  ///< [channels * kernel taps, batch * output positions]
};

Im2ColShape im2colShape(const Node& node, const Shape& x) {
    if (x.size() < 3) opError(node, "input must be [N, C, spatial...], got " + shapeString(x));
    Im2ColShape s;
    s.batch = x[0];
    s.channelBegin = node.intAttr("channel_begin", 0);
    s.channels = node.intAttr("channels", x[1]);
    if (s.channelBegin < 0 || s.channels < 1 || s.channelBegin + s.channels > x[1]) {
        opError(node, "channels [" + std::to_string(s.channelBegin) + ", " +
                          std::to_string(s.channelBegin + s.channels) + ") are not within the " +
                          std::to_string(x[1]) + " input channels");
    }
    s.window = windowGeometry(node, Shape(x.begin() + 2, x.end()), intListAttr(node, "kernel_shape"), false);
    s.output = {s.channels * elementCount(s.window.kernel), s.batch * elementCount(s.window.output)};
    return s;
}

/// Per spatial axis, the output positions whose tap at kernel index k reads the input:
/// [first, end); the others read padding.
struct ValidRange {
    int64_t first = 0, end = 0;
};

ValidRange validRange(const WindowGeometry& g, size_t axis, int64_t k) {
    const int64_t offset = k * g.dilations[axis] - g.padBegin[axis];  // coordinate = o * stride + offset
    const int64_t stride = g.strides[axis], size = g.input[axis], outputs = g.output[axis];
    const int64_t first = std::clamp<int64_t>(ceilDiv(-offset, stride), 0, outputs);
    const int64_t end = std::clamp<int64_t>(floorDiv(size - 1 - offset, stride) + 1, first, outputs);
    return {first, end};
}

}  // namespace

void inferIm2Col(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    setOutput(graph, node, x.dtype, im2colShape(node, x.shape).output);
}

std::vector<Tensor> interpretIm2Col(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Im2ColShape s = im2colShape(node, x.shape);
    const WindowGeometry& g = s.window;
    const std::vector<int64_t> strides = rowMajorStrides(x.shape);
    const int64_t positions = elementCount(g.output);
    const size_t size = dtypeSize(x.dtype);
    Tensor out = Tensor::zeros(x.dtype, s.output);
    int64_t row = 0;
    for (int64_t c = 0; c < s.channels; ++c) {
        forEachPosition(g.kernel, [&](const std::vector<int64_t>& k) {
            for (int64_t n = 0; n < s.batch; ++n) {
                int64_t column = n * positions;
                forEachPosition(g.output, [&](const std::vector<int64_t>& o) {
                    int64_t source = n * strides[0] + (s.channelBegin + c) * strides[1];
                    for (size_t i = 0; i < o.size() && source >= 0; ++i) {
                        const int64_t at = o[i] * g.strides[i] - g.padBegin[i] + k[i] * g.dilations[i];
                        source = at < 0 || at >= g.input[i] ? -1 : source + at * strides[i + 2];
                    }
                    if (source >= 0) {
                        std::memcpy(out.bytes.data() + (row * s.output[1] + column) * size,
                                    x.bytes.data() + source * size, size);
                    }
                    ++column;
                });
            }
            ++row;
        });
    }
    return {std::move(out)};
}

std::vector<StridedCopy> im2colCopies(const Graph& graph, const Node& node) {
    const Value& x = graph.value(node.inputs[0]);
    const Im2ColShape s = im2colShape(node, x.shape);
    const WindowGeometry& g = s.window;
    const std::vector<int64_t> in = rowMajorStrides(x.shape), outSpatial = rowMajorStrides(g.output);
    const int64_t positions = elementCount(g.output), columns = s.output[1], taps = elementCount(g.kernel);
    const size_t rank = g.output.size();
    std::vector<StridedCopy> copies;
    int64_t tap = 0;
    forEachPosition(g.kernel, [&](const std::vector<int64_t>& k) {
        // Along each axis: the positions before the valid range, the range, those after.
        std::vector<std::vector<ValidRange>> segments(rank);
        std::vector<std::vector<bool>> padding(rank);
        for (size_t i = 0; i < rank; ++i) {
            const ValidRange valid = validRange(g, i, k[i]);
            for (const auto& [range, pad] : {std::pair{ValidRange{0, valid.first}, true}, std::pair{valid, false},
                                             std::pair{ValidRange{valid.end, g.output[i]}, true}}) {
                if (range.end <= range.first) continue;
                segments[i].push_back(range);
                padding[i].push_back(pad);
            }
        }
        forEachPosition([&] {
            Shape counts;
            for (const auto& list : segments) counts.push_back(static_cast<int64_t>(list.size()));
            return counts;
        }(), [&](const std::vector<int64_t>& choice) {
            // Dims: channel, batch, then the output positions of the box.
            StridedCopy copy{0, 0, {s.channels, s.batch}, 0, tap * columns, {in[1], in[0]}, {taps * columns, positions}, std::nullopt};
            copy.inputOffset = s.channelBegin * in[1];
            bool pad = false;
            for (size_t i = 0; i < rank; ++i) {
                const ValidRange& range = segments[i][static_cast<size_t>(choice[i])];
                pad = pad || padding[i][static_cast<size_t>(choice[i])];
                copy.dims.push_back(range.end - range.first);
                copy.outputOffset += range.first * outSpatial[i];
                copy.outputStrides.push_back(outSpatial[i]);
                copy.inputOffset += (range.first * g.strides[i] - g.padBegin[i] + k[i] * g.dilations[i]) * in[i + 2];
                copy.inputStrides.push_back(g.strides[i] * in[i + 2]);
            }
            if (pad) {
                copy.fill = Tensor::zeros(x.dtype, {});
                copy.inputOffset = 0;
                copy.inputStrides.assign(copy.dims.size(), 0);
            }
            copies.push_back(std::move(copy));
        });
        ++tap;
    });
    return copies;
}

}  // namespace npusim::compiler::ops
