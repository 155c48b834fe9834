// npusim.Im2Col, an op of the compiler's own (the frontend never imports it): the patches a
// convolution reads, one row per (input channel, kernel tap) and one column per (batch,
// output position), so that a convolution becomes a GEMM of its weights with these columns.
// Taps in the padding read zero. Attributes: the convolution's window attributes (strides,
// dilations, pads, auto_pad), kernel_shape, the input channels read, channel_begin and channels
// (one group of a grouped convolution), and for a transposed convolution run as a convolution,
// input_dilations (X's elements spread apart, zeros between) and flip (the taps in reverse);
// channels_first when X is stored [C, N, spatial...] (layout assignment's doing). An optional second input, one element of X's type, is read where padding is (an integer
// convolution pads with its input's zero point); zero otherwise.
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
    /// X's axes holding the batch and the channels: 0 and 1, or 1 and 0 when X is stored
    /// channels first ([C, N, spatial...], the layout a convolution's GEMM writes).
    size_t batchAxis = 0, channelAxis = 1;
    std::vector<int64_t> inputDilations;  ///< per spatial dim: X's elements sit this far apart
    bool flip = false;                    ///< taps in reverse row-major kernel order
    WindowGeometry window;                ///< over the dilated input
    Shape output;                         ///< [channels * kernel taps, batch * output positions]
};

Im2ColShape im2colShape(const Node& node, const Shape& x) {
    if (x.size() < 3) opError(node, "input must be [N, C, spatial...], got " + shapeString(x));
    Im2ColShape s;
    if (node.intAttr("channels_first", 0) != 0) std::swap(s.batchAxis, s.channelAxis);
    const int64_t inputChannels = x[s.channelAxis];
    s.batch = x[s.batchAxis];
    s.channelBegin = node.intAttr("channel_begin", 0);
    s.channels = node.intAttr("channels", inputChannels);
    if (s.channelBegin < 0 || s.channels < 1 || s.channelBegin + s.channels > inputChannels) {
        opError(node, "channels [" + std::to_string(s.channelBegin) + ", " +
                          std::to_string(s.channelBegin + s.channels) + ") are not within the " +
                          std::to_string(inputChannels) + " input channels");
    }
    const size_t rank = x.size() - 2;
    s.inputDilations = intListAttr(node, "input_dilations", std::vector<int64_t>(rank, 1));
    if (s.inputDilations.size() != rank ||
        std::any_of(s.inputDilations.begin(), s.inputDilations.end(), [](int64_t d) { return d < 1; })) {
        opError(node, "input_dilations " + shapeString(s.inputDilations) + " must be " + std::to_string(rank) +
                          " positive values");
    }
    s.flip = node.intAttr("flip", 0) != 0;
    Shape dilated;
    for (size_t i = 0; i < rank; ++i) dilated.push_back((x[i + 2] - 1) * s.inputDilations[i] + 1);
    s.window = windowGeometry(node, dilated, intListAttr(node, "kernel_shape"), false);
    s.output = {s.channels * elementCount(s.window.kernel), s.batch * elementCount(s.window.output)};
    return s;
}

/// The input index along axis `i` that output position o's tap k reads; -1 for padding or
/// for a hole between dilated input elements.
int64_t sourceIndex(const Im2ColShape& s, size_t i, int64_t o, int64_t k) {
    const WindowGeometry& g = s.window;
    const int64_t at = o * g.strides[i] - g.padBegin[i] + k * g.dilations[i];
    if (at < 0 || at >= g.input[i] || at % s.inputDilations[i] != 0) return -1;
    return at / s.inputDilations[i];
}

/// Output positions along one axis, `count` of them from `start` in steps of `step`: those of
/// a tap that read input elements from `source` on (one apart), or fill positions.
struct AxisPiece {
    int64_t start = 0, count = 0, step = 1, source = 0;
    bool fill = false;
};

/// The pieces of tap k along axis i: the positions that read the input form one arithmetic
/// progression; the others are filled, in runs of the same step.
std::vector<AxisPiece> axisPieces(const Im2ColShape& s, size_t i, int64_t k) {
    const int64_t outputs = s.window.output[i];
    std::vector<int64_t> valid;
    for (int64_t o = 0; o < outputs; ++o) {
        if (sourceIndex(s, i, o, k) >= 0) valid.push_back(o);
    }
    const int64_t step = valid.size() > 1 ? valid[1] - valid[0] : 1;
    std::vector<AxisPiece> pieces;
    auto fill = [&](int64_t from, int64_t to) {  // positions from, from + step, ... below to
        if (from < to) pieces.push_back({from, (to - from + step - 1) / step, step, 0, true});
    };
    for (int64_t r = 0; r < step; ++r) {
        if (valid.empty() || r != valid[0] % step) {
            fill(r, outputs);
            continue;
        }
        fill(r, valid.front());
        pieces.push_back({valid.front(), static_cast<int64_t>(valid.size()), step, sourceIndex(s, i, valid.front(), k), false});
        fill(valid.back() + step, outputs);
    }
    return pieces;
}

}  // namespace

void inferIm2Col(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    if (const Value* fill = optionalInput(graph, node, 1); fill && (fill->dtype != x.dtype || elementCount(fill->shape) != 1)) {
        opError(node, "the padding value must be one " + std::string(dtypeName(x.dtype)) + " element");
    }
    setOutput(graph, node, x.dtype, im2colShape(node, x.shape).output);
}

std::vector<Tensor> interpretIm2Col(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Im2ColShape s = im2colShape(node, x.shape);
    const WindowGeometry& g = s.window;
    const std::vector<int64_t> strides = rowMajorStrides(x.shape);
    const int64_t positions = elementCount(g.output), taps = elementCount(g.kernel);
    const size_t size = dtypeSize(x.dtype);
    Tensor out = Tensor::zeros(x.dtype, s.output);
    if (inputs.size() > 1 && inputs[1]) {  // padding reads the given value
        for (size_t i = 0; i < out.bytes.size(); i += size) std::memcpy(out.bytes.data() + i, inputs[1]->bytes.data(), size);
    }
    for (int64_t c = 0; c < s.channels; ++c) {
        int64_t tap = 0;
        forEachPosition(g.kernel, [&](const std::vector<int64_t>& k) {
            const int64_t row = c * taps + (s.flip ? taps - 1 - tap : tap);
            for (int64_t n = 0; n < s.batch; ++n) {
                int64_t column = n * positions;
                forEachPosition(g.output, [&](const std::vector<int64_t>& o) {
                    int64_t source = n * strides[s.batchAxis] + (s.channelBegin + c) * strides[s.channelAxis];
                    for (size_t i = 0; i < o.size() && source >= 0; ++i) {
                        const int64_t index = sourceIndex(s, i, o[i], k[i]);
                        source = index < 0 ? -1 : source + index * strides[i + 2];
                    }
                    if (source >= 0) {
                        std::memcpy(out.bytes.data() + (row * s.output[1] + column) * size,
                                    x.bytes.data() + source * size, size);
                    }
                    ++column;
                });
            }
            ++tap;
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
        std::vector<std::vector<AxisPiece>> pieces(rank);
        Shape counts;
        for (size_t i = 0; i < rank; ++i) {
            pieces[i] = axisPieces(s, i, k[i]);
            counts.push_back(static_cast<int64_t>(pieces[i].size()));
        }
        const int64_t row = s.flip ? taps - 1 - tap : tap;
        // One copy per box (a piece of every axis); dims: channel, batch, the box's positions.
        forEachPosition(counts, [&](const std::vector<int64_t>& choice) {
            StridedCopy copy{0, 0, {s.channels, s.batch}, s.channelBegin * in[s.channelAxis], row * columns,
                             {in[s.channelAxis], in[s.batchAxis]}, {taps * columns, positions}, std::nullopt};
            bool fill = false;
            for (size_t i = 0; i < rank; ++i) {
                const AxisPiece& piece = pieces[i][static_cast<size_t>(choice[i])];
                fill = fill || piece.fill;
                copy.dims.push_back(piece.count);
                copy.outputOffset += piece.start * outSpatial[i];
                copy.outputStrides.push_back(piece.step * outSpatial[i]);
                copy.inputOffset += piece.source * in[i + 2];
                copy.inputStrides.push_back(piece.step * g.strides[i] / s.inputDilations[i] * in[i + 2]);
            }
            if (fill) {
                // A constant padding value (a quantised input's zero point) is written as a
                // fill; one given at run time is read at every element.
                const bool padInput = node.inputs.size() > 1 && node.inputs[1] != kNoValue;
                if (padInput && !graph.value(node.inputs[1]).constant) {
                    copy.input = 1;
                } else {
                    copy.fill = padInput ? *graph.value(node.inputs[1]).constant : Tensor::zeros(x.dtype, {});
                }
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
