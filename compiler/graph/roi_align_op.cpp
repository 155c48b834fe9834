// RoiAlign (opset 16): each region of interest [x1, y1, x2, y2] (scaled by spatial_scale, moved
// half a pixel back with half_pixel) of its batch entry's feature map is cut into
// output_height x output_width bins; each bin samples a grid of sampling_ratio^2 points
// (ceil(region / bins) per axis when 0) by bilinear interpolation and averages them (mode avg)
// or keeps the largest weighted corner (mode max), as ONNX's reference does. Points more than a
// pixel outside the map read 0. Computed in double, rounded once.
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

/// The 4 corners of a bilinear sample at (y, x) of an height x width map: flat positions and
/// weights, all 0 for a point more than a pixel outside.
struct Corners {
    std::array<int64_t, 4> position{};
    std::array<double, 4> weight{};
};

Corners corners(double y, double x, int64_t height, int64_t width) {
    Corners c;
    if (y < -1.0 || y > static_cast<double>(height) || x < -1.0 || x > static_cast<double>(width)) return c;
    y = std::max(y, 0.0);
    x = std::max(x, 0.0);
    auto yLow = static_cast<int64_t>(y), xLow = static_cast<int64_t>(x);
    int64_t yHigh = yLow + 1, xHigh = xLow + 1;
    if (yLow >= height - 1) {
        yLow = yHigh = height - 1;
        y = static_cast<double>(yLow);
    }
    if (xLow >= width - 1) {
        xLow = xHigh = width - 1;
        x = static_cast<double>(xLow);
    }
    const double ly = y - static_cast<double>(yLow), lx = x - static_cast<double>(xLow);
    c.position = {yLow * width + xLow, yLow * width + xHigh, yHigh * width + xLow, yHigh * width + xHigh};
    c.weight = {(1 - ly) * (1 - lx), (1 - ly) * lx, ly * (1 - lx), ly * lx};
    return c;
}

}  // namespace

RoiAlignOptions roiAlignOptions(const Node& node) {
    RoiAlignOptions o;
    const std::string mode = stringAttr(node, "mode", "avg"),
                      transform = stringAttr(node, "coordinate_transformation_mode", "half_pixel");
    if (mode != "avg" && mode != "max") opError(node, "mode '" + mode + "' is not one of avg, max");
    if (transform != "half_pixel" && transform != "output_half_pixel") {
        opError(node, "coordinate_transformation_mode '" + transform + "' is not one of half_pixel, output_half_pixel");
    }
    o.max = mode == "max";
    o.halfPixel = transform == "half_pixel";
    o.height = node.intAttr("output_height", 1);
    o.width = node.intAttr("output_width", 1);
    o.samplingRatio = node.intAttr("sampling_ratio", 0);
    o.spatialScale = node.floatAttr("spatial_scale", 1.0);
    if (o.height < 1 || o.width < 1 || o.samplingRatio < 0) {
        opError(node, "output_height and output_width must be at least 1 and sampling_ratio at least 0");
    }
    return o;
}

void inferRoiAlign(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& rois = graph.value(node.inputs[1]);
    const Value& batch = graph.value(node.inputs[2]);
    requireDType(node, "X", x.dtype, kFloatDTypes);
    requireSameDType(node, "rois", rois.dtype, "X", x.dtype);
    requireDType(node, "batch_indices", batch.dtype, {DType::Int64});
    const RoiAlignOptions o = roiAlignOptions(node);
    if (x.shape.size() != 4 || rois.shape.size() != 2 || rois.shape[1] != 4 || batch.shape != Shape{rois.shape[0]}) {
        opError(node, "X must be [N, C, H, W], rois [R, 4] and batch_indices [R], got " + shapeString(x.shape) + ", " +
                          shapeString(rois.shape) + " and " + shapeString(batch.shape));
    }
    setOutput(graph, node, x.dtype, {rois.shape[0], x.shape[1], o.height, o.width});
}

std::vector<Tensor> interpretRoiAlign(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const RoiAlignOptions o = roiAlignOptions(node);
    const int64_t batchSize = x.shape[0], channels = x.shape[1], height = x.shape[2], width = x.shape[3];
    const int64_t regions = inputs[1]->shape[0];
    const std::vector<double> values = floatValues(x), rois = floatValues(*inputs[1]);
    const std::vector<int64_t> batch = integerValues(*inputs[2]);
    std::vector<double> out(static_cast<size_t>(regions * channels * o.height * o.width));
    const double offset = o.halfPixel ? 0.5 : 0.0;
    for (int64_t r = 0; r < regions; ++r) {
        if (batch[r] < 0 || batch[r] >= batchSize) {
            opError(node, "batch index " + std::to_string(batch[r]) + " is outside [0, " + std::to_string(batchSize) + ")");
        }
        const double* roi = rois.data() + r * 4;
        const double startX = roi[0] * o.spatialScale - offset, startY = roi[1] * o.spatialScale - offset;
        double roiWidth = roi[2] * o.spatialScale - offset - startX, roiHeight = roi[3] * o.spatialScale - offset - startY;
        if (!o.halfPixel) {
            roiWidth = std::max(roiWidth, 1.0);
            roiHeight = std::max(roiHeight, 1.0);
        }
        const double binHeight = roiHeight / static_cast<double>(o.height), binWidth = roiWidth / static_cast<double>(o.width);
        const int64_t gridHeight = o.samplingRatio > 0 ? o.samplingRatio : static_cast<int64_t>(std::ceil(binHeight));
        const int64_t gridWidth = o.samplingRatio > 0 ? o.samplingRatio : static_cast<int64_t>(std::ceil(binWidth));
        const auto count = static_cast<double>(std::max<int64_t>(gridHeight * gridWidth, 1));
        for (int64_t c = 0; c < channels; ++c) {
            const double* plane = values.data() + (batch[r] * channels + c) * height * width;
            for (int64_t ph = 0; ph < o.height; ++ph) {
                for (int64_t pw = 0; pw < o.width; ++pw) {
                    double result = 0;
                    bool first = true;
                    for (int64_t iy = 0; iy < gridHeight; ++iy) {
                        const double y = startY + static_cast<double>(ph) * binHeight +
                                         (static_cast<double>(iy) + 0.5) * binHeight / static_cast<double>(gridHeight);
                        for (int64_t ix = 0; ix < gridWidth; ++ix) {
                            const double x = startX + static_cast<double>(pw) * binWidth +
                                             (static_cast<double>(ix) + 0.5) * binWidth / static_cast<double>(gridWidth);
                            const Corners k = corners(y, x, height, width);
                            double sample = o.max ? k.weight[0] * plane[k.position[0]] : 0;
                            for (size_t i = 0; i < 4; ++i) {
                                const double term = k.weight[i] * plane[k.position[i]];
                                sample = o.max ? std::max(sample, term) : sample + term;
                            }
                            result = o.max ? (first ? sample : std::max(result, sample)) : result + sample;
                            first = false;
                        }
                    }
                    out[((r * channels + c) * o.height + ph) * o.width + pw] = o.max ? result : result / count;
                }
            }
        }
    }
    return {floatTensor(x.dtype, {regions, channels, o.height, o.width}, out)};
}

}  // namespace npusim::compiler::ops
