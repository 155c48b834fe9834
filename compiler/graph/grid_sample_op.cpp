// GridSample (opset 16): each output position (n, h, w) samples X[n] at the grid's (x, y), which
// runs from -1 to 1 over the input (the corner pixels' centres with align_corners, their outer
// edges without). Nearest rounds halves to even; bilinear weighs the 4 neighbours, bicubic the
// 16 (Keys, a = -0.75). Out of the input, zeros padding reads 0, border the nearest edge pixel,
// reflection the pixel mirrored at the edges; bilinear and nearest pad the sample point, bicubic
// each tap (as PyTorch, whose results ONNX's tests hold). Computed in double, rounded once.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_attributes.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// The input coordinate of grid value g in [-1, 1] along an axis of `size` pixels.
double sourceCoordinate(double g, int64_t size, bool alignCorners) {
    const auto n = static_cast<double>(size);
    return alignCorners ? (g + 1) / 2 * (n - 1) : ((g + 1) * n - 1) / 2;
}

/// The reflection of `x` into [low / 2, high / 2] (a span of mirror images of the input).
double reflect(double x, double twiceLow, double twiceHigh) {
    if (twiceLow == twiceHigh) return 0;
    const double low = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
    x = std::fabs(x - low);
    const double extra = std::fmod(x, span), flips = std::floor(x / span);
    return std::fmod(flips, 2) == 0 ? extra + low : span - extra + low;
}

/// A coordinate moved inside [0, size - 1] by border or reflection padding; as it is for zeros.
double padded(double x, int64_t size, const GridSampleOptions& o) {
    const auto last = static_cast<double>(size - 1);
    if (o.padding == GridPadding::Zeros) return x;
    if (o.padding == GridPadding::Reflection) {
        x = o.alignCorners ? reflect(x, 0, 2 * last) : reflect(x, -1, 2 * last + 1);
    }
    return std::min(std::max(x, 0.0), last);
}

/// Keys' cubic convolution weights of the taps at floor(x) - 1 ... floor(x) + 2, t = x - floor(x).
std::array<double, 4> cubicWeights(double t) {
    constexpr double a = -0.75;
    const auto near = [](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
    const auto far = [](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
    return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

}  // namespace

GridSampleOptions gridSampleOptions(const Node& node) {
    GridSampleOptions o;
    const std::string mode = stringAttr(node, "mode", "bilinear"), padding = stringAttr(node, "padding_mode", "zeros");
    if (mode != "bilinear" && mode != "nearest" && mode != "bicubic") {
        opError(node, "mode '" + mode + "' is not one of bilinear, nearest, bicubic");
    }
    if (padding != "zeros" && padding != "border" && padding != "reflection") {
        opError(node, "padding_mode '" + padding + "' is not one of zeros, border, reflection");
    }
    o.mode = mode == "nearest" ? GridMode::Nearest : mode == "bicubic" ? GridMode::Bicubic : GridMode::Bilinear;
    o.padding = padding == "border" ? GridPadding::Border : padding == "reflection" ? GridPadding::Reflection : GridPadding::Zeros;
    o.alignCorners = node.intAttr("align_corners", 0) != 0;
    return o;
}

void inferGridSample(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& grid = graph.value(node.inputs[1]);
    requireDType(node, "X", x.dtype, kFloatDTypes);
    requireSameDType(node, "grid", grid.dtype, "X", x.dtype);
    gridSampleOptions(node);
    if (x.shape.size() != 4 || grid.shape.size() != 4 || grid.shape[0] != x.shape[0] || grid.shape[3] != 2) {
        opError(node, "X must be [N, C, H, W] and grid [N, H_out, W_out, 2], got " + shapeString(x.shape) + " and " +
                          shapeString(grid.shape));
    }
    setOutput(graph, node, x.dtype, {x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]});
}

std::vector<Tensor> interpretGridSample(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const GridSampleOptions o = gridSampleOptions(node);
    const int64_t channels = x.shape[1], height = x.shape[2], width = x.shape[3];
    const int64_t outHeight = inputs[1]->shape[1], outWidth = inputs[1]->shape[2];
    const std::vector<double> values = floatValues(x), grid = floatValues(*inputs[1]);
    std::vector<double> out(static_cast<size_t>(x.shape[0] * channels * outHeight * outWidth));
    forEachPosition({x.shape[0], outHeight, outWidth}, [&](const std::vector<int64_t>& p) {
        const int64_t at = ((p[0] * outHeight + p[1]) * outWidth + p[2]) * 2;
        const double sx = sourceCoordinate(grid[at], width, o.alignCorners);
        const double sy = sourceCoordinate(grid[at + 1], height, o.alignCorners);
        for (int64_t c = 0; c < channels; ++c) {
            const double* plane = values.data() + (p[0] * channels + c) * height * width;
            const auto pixel = [&](double row, double column) {
                const bool inside = row >= 0 && row < static_cast<double>(height) && column >= 0 &&
                                    column < static_cast<double>(width);
                return inside ? plane[static_cast<int64_t>(row) * width + static_cast<int64_t>(column)] : 0.0;
            };
            double result = 0;
            if (o.mode == GridMode::Nearest) {
                result = pixel(std::nearbyint(padded(sy, height, o)), std::nearbyint(padded(sx, width, o)));
            } else if (o.mode == GridMode::Bilinear) {
                const double px = padded(sx, width, o), py = padded(sy, height, o);
                const double x0 = std::floor(px), y0 = std::floor(py), fx = px - x0, fy = py - y0;
                result = pixel(y0, x0) * (1 - fy) * (1 - fx) + pixel(y0, x0 + 1) * (1 - fy) * fx +
                         pixel(y0 + 1, x0) * fy * (1 - fx) + pixel(y0 + 1, x0 + 1) * fy * fx;
            } else {
                const double x0 = std::floor(sx), y0 = std::floor(sy);
                const std::array<double, 4> wx = cubicWeights(sx - x0), wy = cubicWeights(sy - y0);
                for (int64_t i = 0; i < 4; ++i) {
                    for (int64_t j = 0; j < 4; ++j) {
                        const auto row = static_cast<double>(i - 1), column = static_cast<double>(j - 1);
                        result += wy[i] * wx[j] * pixel(padded(y0 + row, height, o), padded(x0 + column, width, o));
                    }
                }
            }
            out[((p[0] * channels + c) * outHeight + p[1]) * outWidth + p[2]] = result;
        }
    });
    return {floatTensor(x.dtype, {x.shape[0], channels, outHeight, outWidth}, out)};
}

}  // namespace npusim::compiler::ops
