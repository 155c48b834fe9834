// Shape checks and the reference loop nest of grouped N-D convolution.
#include "compiler/graph/convolution.h"

#include <algorithm>
#include <vector>

#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// The geometry without its last spatial dim: a walk over whole output rows.
WindowGeometry withoutLastDim(const WindowGeometry& g) {
    const auto drop = [](const std::vector<int64_t>& v) {
        return std::vector<int64_t>(v.begin(), v.end() - 1);
    };
    return {drop(g.input),     drop(g.kernel),   drop(g.output), drop(g.strides),
            drop(g.dilations), drop(g.padBegin), drop(g.padEnd)};
}

/// Along the last spatial dim, kernel column k reads input column o * stride + offset for the
/// output columns o in [begin, end); the other output columns read padding.
struct ColumnRange {
    int64_t begin = 0, end = 0, offset = 0;
};

/// yRow[o] += weight * xRow[o * stride + offset] over the range, accumulating in Acc.
template <class T, class Acc>
void accumulateRow(T* yRow, const T* xRow, Acc weight, const ColumnRange& range, int64_t stride) {
    if (stride == 1) {
        for (int64_t o = range.begin; o < range.end; ++o) {
            yRow[o] = static_cast<T>(static_cast<Acc>(yRow[o]) +
                                     weight * static_cast<Acc>(xRow[o + range.offset]));
        }
        return;
    }
    for (int64_t o = range.begin; o < range.end; ++o) {
        yRow[o] = static_cast<T>(static_cast<Acc>(yRow[o]) +
                                 weight * static_cast<Acc>(xRow[o * stride + range.offset]));
    }
}

/// A direct convolution that runs along output rows (the last spatial dim), so that the
/// innermost loop reads X and writes Y contiguously for unit strides. The kernel taps of the
/// leading spatial dims are found once per output row and reused for every batch, output
/// channel and input channel.
template <class T, class Acc>
void convolveLoops(const ConvShape& shape, std::span<const T> x, std::span<const T> w,
                   std::span<T> y) {
    const WindowGeometry& g = shape.window;
    const size_t last = g.input.size() - 1;
    const int64_t inWidth = g.input[last], outWidth = g.output[last];
    const int64_t kernelWidth = g.kernel[last], stride = g.strides[last];
    std::vector<ColumnRange> columns;
    for (int64_t k = 0; k < kernelWidth; ++k) {
        const int64_t offset = k * g.dilations[last] - g.padBegin[last];
        columns.push_back({std::max<int64_t>(0, ceilDiv(-offset, stride)),
                           std::min(outWidth, ceilDiv(inWidth - offset, stride)), offset});
    }
    const WindowGeometry rows = withoutLastDim(g);
    WindowTaps rowTaps(rows);
    const int64_t inSize = elementCount(g.input), outSize = elementCount(g.output);
    const int64_t kernelSize = elementCount(g.kernel), outRows = elementCount(rows.output);
    const int64_t groupIn = shape.inChannels / shape.group;
    const int64_t groupOut = shape.outChannels / shape.group;
    for (int64_t row = 0; row < outRows; ++row) {
        const std::span<const WindowTap> taps = rowTaps.at(row);
        for (int64_t n = 0; n < shape.batch; ++n) {
            for (int64_t m = 0; m < shape.outChannels; ++m) {
                T* yRow = y.data() + (n * shape.outChannels + m) * outSize + row * outWidth;
                const int64_t firstChannel = (m / groupOut) * groupIn;
                for (int64_t c = 0; c < groupIn; ++c) {
                    const T* xPlane = x.data() + (n * shape.inChannels + firstChannel + c) * inSize;
                    const T* wPlane = w.data() + (m * groupIn + c) * kernelSize;
                    for (const WindowTap& tap : taps) {
                        const T* xRow = xPlane + tap.input * inWidth;
                        const T* wRow = wPlane + tap.kernel * kernelWidth;
                        for (int64_t k = 0; k < kernelWidth; ++k) {
                            accumulateRow(yRow, xRow, static_cast<Acc>(wRow[k]), columns[k],
                                          stride);
                        }
                    }
                }
            }
        }
    }
}

}  // namespace

void checkConvBias(const Node& node, const Shape& bias, int64_t outChannels) {
    if (bias != Shape{outChannels}) {
        opError(node, "B must be [M]=[" + std::to_string(outChannels) +
                          "], one value per output channel, got " + shapeString(bias));
    }
}

ConvShape convShape(const Node& node, const Shape& x, const Shape& w) {
    if (x.size() < 3) {
        opError(node, "X must be [N, C, spatial...] with at least one spatial dim, got " +
                          shapeString(x));
    }
    if (w.size() != x.size()) {
        opError(node, "W " + shapeString(w) + " must have the rank of X " + shapeString(x));
    }
    ConvShape shape;
    shape.batch = x[0];
    shape.inChannels = x[1];
    shape.outChannels = w[0];
    shape.group = node.intAttr("group", 1);
    if (shape.group < 1) {
        opError(node, "group " + std::to_string(shape.group) + " must be positive");
    }
    if (w[1] * shape.group != x[1] || shape.outChannels % shape.group != 0) {
        opError(node, "X is " + shapeString(x) + " and W is " + shapeString(w) + " with group " +
                          std::to_string(shape.group) +
                          ": W's dim 1 times group must equal X's channels, and group must "
                          "divide W's dim 0");
    }
    const Shape kernel(w.begin() + 2, w.end());
    if (std::any_of(kernel.begin(), kernel.end(), [](int64_t dim) { return dim < 1; })) {
        opError(node, "W " + shapeString(w) + " has an empty kernel");
    }
    const Shape kernelAttribute = intListAttr(node, "kernel_shape", kernel);
    if (kernelAttribute != kernel) {
        opError(node, "kernel_shape " + shapeString(kernelAttribute) +
                          " differs from W's spatial dims " + shapeString(kernel));
    }
    shape.window = windowGeometry(node, Shape(x.begin() + 2, x.end()), kernel, false);
    shape.output = {shape.batch, shape.outChannels};
    shape.output.insert(shape.output.end(), shape.window.output.begin(), shape.window.output.end());
    return shape;
}

bool isDepthwiseConvolution(const Graph& graph, const Node& node) {
    if (node.kind != OpKind::Conv) return false;
    const Value& x = graph.value(node.inputs[0]);
    const Value& w = graph.value(node.inputs[1]);
    const int64_t group = node.intAttr("group", 1);
    return x.dtype == DType::Fp32 && x.shape.size() >= 3 && group > 1 && group == x.shape[1] && w.shape.size() == x.shape.size() &&
           w.shape[1] == 1 && w.shape[0] % group == 0;
}

void convolve(const ConvShape& shape, std::span<const float> x, std::span<const float> w,
              std::span<float> y) {
    convolveLoops<float, float>(shape, x, w, y);
}

void convolve(const ConvShape& shape, std::span<const int32_t> x, std::span<const int32_t> w,
              std::span<int32_t> y) {
    convolveLoops<int32_t, uint32_t>(shape, x, w, y);
}

}  // namespace npusim::compiler::ops
