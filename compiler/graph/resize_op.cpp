// Resize: nearest, n-linear and cubic resampling of every axis, with ONNX's coordinate
// transformations. The opset-10 form (X, scales) samples like Resize-11's asymmetric transform
// with nearest_mode floor, as ONNX's version converter maps it. Axes are resampled one at a time,
// the last first, as ONNX's reference recursion does.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/resize_sampling.h"

namespace npusim::compiler::ops {
namespace {

enum class ResizeMode { Nearest, Linear, Cubic };
enum class CoordinateTransform {
    HalfPixel,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    TfHalfPixelForNn,
    TfCropAndResize,
};
enum class NearestRounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

/// The attributes that decide how an output coordinate samples the input.
struct ResizeOptions {
    ResizeMode mode = ResizeMode::Nearest;
    CoordinateTransform transform = CoordinateTransform::HalfPixel;
    NearestRounding rounding = NearestRounding::RoundPreferFloor;
    double cubicA = -0.75;
    bool excludeOutside = false;
    double extrapolation = 0;
};

/// The enumerator a string attribute names; opError listing the names otherwise.
template <class Enum, size_t N>
Enum parseChoice(const Node& node, const std::string& key, const std::string& value,
                 const std::array<std::pair<std::string_view, Enum>, N>& choices) {
    std::string names;
    for (const auto& [name, choice] : choices) {
        if (name == value) return choice;
        names += (names.empty() ? "" : ", ") + std::string(name);
    }
    opError(node, key + " '" + value + "' is not one of " + names);
}

/// The opset-10 form has exactly two inputs; from opset 11 on scales is input 2, sizes input 3.
bool isOpset10Form(size_t inputCount) {
    return inputCount == 2;
}

ResizeOptions resizeOptions(const Node& node) {
    constexpr std::array<std::pair<std::string_view, ResizeMode>, 3> kModes{{
        {"nearest", ResizeMode::Nearest},
        {"linear", ResizeMode::Linear},
        {"cubic", ResizeMode::Cubic},
    }};
    constexpr std::array<std::pair<std::string_view, CoordinateTransform>, 6> kTransforms{{
        {"half_pixel", CoordinateTransform::HalfPixel},
        {"pytorch_half_pixel", CoordinateTransform::PytorchHalfPixel},
        {"align_corners", CoordinateTransform::AlignCorners},
        {"asymmetric", CoordinateTransform::Asymmetric},
        {"tf_half_pixel_for_nn", CoordinateTransform::TfHalfPixelForNn},
        {"tf_crop_and_resize", CoordinateTransform::TfCropAndResize},
    }};
    constexpr std::array<std::pair<std::string_view, NearestRounding>, 4> kRoundings{{
        {"round_prefer_floor", NearestRounding::RoundPreferFloor},
        {"round_prefer_ceil", NearestRounding::RoundPreferCeil},
        {"floor", NearestRounding::Floor},
        {"ceil", NearestRounding::Ceil},
    }};
    for (const char* opset18 : {"antialias", "axes", "keep_aspect_ratio_policy"}) {
        if (node.attributes.contains(opset18)) {
            opError(node, "attribute '" + std::string(opset18) +
                              "' (Resize-18) is not supported; npusim takes Resize up to opset 17");
        }
    }
    ResizeOptions options;
    options.mode = parseChoice(node, "mode", stringAttr(node, "mode", "nearest"), kModes);
    if (isOpset10Form(node.inputs.size())) {
        options.transform = CoordinateTransform::Asymmetric;
        options.rounding = NearestRounding::Floor;
    } else {
        const std::string transform = "coordinate_transformation_mode";
        options.transform =
            parseChoice(node, transform, stringAttr(node, transform, "half_pixel"), kTransforms);
        options.rounding =
            parseChoice(node, "nearest_mode",
                        stringAttr(node, "nearest_mode", "round_prefer_floor"), kRoundings);
    }
    options.cubicA = node.floatAttr("cubic_coeff_a", -0.75);
    options.excludeOutside = node.intAttr("exclude_outside", 0) != 0;
    options.extrapolation = node.floatAttr("extrapolation_value", 0.0);
    return options;
}

/// The output shape and, per axis, the scale the coordinate transformation divides by.
struct ResizeTarget {
    Shape output;
    std::vector<double> scales;
};

/// The output from either scales (output = floor(input * scale), in fp32 as ONNX's shape
/// inference computes it) or sizes (scale = output / input); exactly one must be given.
ResizeTarget resizeTarget(const Node& node, const Shape& x, const Tensor* scales,
                          const Tensor* sizes) {
    const bool hasScales = scales && scales->elementCount() > 0;
    const bool hasSizes = sizes && sizes->elementCount() > 0;
    if (hasScales == hasSizes) {
        opError(node, "exactly one of scales and sizes must be given (non-empty)");
    }
    const Tensor& given = hasScales ? *scales : *sizes;
    if (given.shape != Shape{static_cast<int64_t>(x.size())}) {
        opError(node, std::string(hasScales ? "scales" : "sizes") + " must be [" +
                          std::to_string(x.size()) + "], one value per axis of X " +
                          shapeString(x) + ", got " + shapeString(given.shape));
    }
    ResizeTarget target;
    for (size_t axis = 0; axis < x.size(); ++axis) {
        if (hasScales) {
            const float scale = scales->as<float>()[axis];
            if (!(scale > 0)) {
                opError(node, "scales must be positive, got " + std::to_string(scale) +
                                  " for axis " + std::to_string(axis));
            }
            target.scales.push_back(scale);
            target.output.push_back(
                static_cast<int64_t>(std::floor(static_cast<float>(x[axis]) * scale)));
        } else {
            target.output.push_back(sizes->as<int64_t>()[axis]);
            target.scales.push_back(static_cast<double>(target.output.back()) /
                                    static_cast<double>(x[axis]));
        }
        if (target.output.back() < 1) {
            opError(node, "the output " + shapeString(target.output) + " of X " + shapeString(x) +
                              " would be empty along axis " + std::to_string(axis));
        }
    }
    return target;
}

/// The input coordinate output coordinate `x` maps to along an axis of `length` elements.
/// `resized` is length * scale, unrounded, as ONNX's reference uses it.
double originalCoordinate(CoordinateTransform transform, double x, double scale, int64_t length,
                          double roiStart, double roiEnd) {
    const double resized = scale * static_cast<double>(length);
    const auto last = static_cast<double>(length - 1);
    switch (transform) {
        case CoordinateTransform::HalfPixel:
            return (x + 0.5) / scale - 0.5;
        case CoordinateTransform::PytorchHalfPixel:
            return resized > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
        case CoordinateTransform::AlignCorners:
            return resized == 1 ? 0.0 : x * last / (resized - 1);
        case CoordinateTransform::Asymmetric:
            return x / scale;
        case CoordinateTransform::TfHalfPixelForNn:
            return (x + 0.5) / scale;
        case CoordinateTransform::TfCropAndResize:
            // The output spans the region of interest [roiStart, roiEnd] of the input.
            if (resized == 1) return 0.5 * (roiStart + roiEnd) * last;
            return roiStart * last + x * (roiEnd - roiStart) * last / (resized - 1);
    }
    return x;
}

int64_t nearestIndex(NearestRounding rounding, double coordinate) {
    const double floor = std::floor(coordinate);
    switch (rounding) {
        case NearestRounding::Floor:
            return static_cast<int64_t>(floor);
        case NearestRounding::Ceil:
            return static_cast<int64_t>(std::ceil(coordinate));
        case NearestRounding::RoundPreferFloor:
            return static_cast<int64_t>(coordinate - floor <= 0.5 ? floor : floor + 1);
        case NearestRounding::RoundPreferCeil:
            return static_cast<int64_t>(coordinate - floor < 0.5 ? floor : floor + 1);
    }
    return static_cast<int64_t>(floor);
}

/// Keys' cubic convolution weights of the four neighbours at distance 1 + r, r, 1 - r, 2 - r.
std::array<double, 4> cubicWeights(double r, double a) {
    const auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
    const auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
    return {far(1 + r), near(r), near(1 - r), far(2 - r)};
}

AxisSampling axisSamples(const ResizeOptions& options, int64_t length, int64_t outLength,
                        double scale, double roiStart, double roiEnd) {
    AxisSampling samples;
    samples.taps = options.mode == ResizeMode::Nearest  ? 1
                   : options.mode == ResizeMode::Linear ? 2
                                                        : 4;
    for (int64_t o = 0; o < outLength; ++o) {
        const double x = originalCoordinate(options.transform, static_cast<double>(o), scale,
                                            length, roiStart, roiEnd);
        samples.extrapolate.push_back(options.transform == CoordinateTransform::TfCropAndResize &&
                                      (x < 0 || x > static_cast<double>(length - 1)));
        // i0 is the neighbour just below x, so that r = x - i0 lies in (0, 1].
        const double i0 = std::ceil(x) - 1;
        const double r = x - i0;
        std::array<double, 4> weights{};
        int64_t first = 0;
        if (options.mode == ResizeMode::Nearest) {
            first = nearestIndex(options.rounding, x);
            weights = {1, 0, 0, 0};
        } else if (options.mode == ResizeMode::Linear) {
            first = static_cast<int64_t>(i0);
            weights = {1 - r, r, 0, 0};
        } else {
            first = static_cast<int64_t>(i0) - 1;
            weights = cubicWeights(r, options.cubicA);
        }
        if (options.excludeOutside) {
            double sum = 0;
            for (int64_t t = 0; t < samples.taps; ++t) {
                if (first + t < 0 || first + t >= length) weights[t] = 0;
                sum += weights[t];
            }
            for (int64_t t = 0; t < samples.taps; ++t) weights[t] /= sum;
        }
        for (int64_t t = 0; t < samples.taps; ++t) {
            // Neighbours beyond the edges read the edge element.
            samples.index.push_back(std::clamp<int64_t>(first + t, 0, length - 1));
            samples.weight.push_back(weights[t]);
        }
    }
    return samples;
}

/// Resamples axis `axis` of `data` (of shape `shape`, updated to the new length).
std::vector<double> resampleAxis(const std::vector<double>& data, Shape& shape, size_t axis,
                                 const AxisSampling& samples, double extrapolation) {
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < axis; ++i) outer *= shape[i];
    for (size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
    const int64_t length = shape[axis];
    const auto outLength = static_cast<int64_t>(samples.extrapolate.size());
    std::vector<double> out(static_cast<size_t>(outer * outLength * inner));
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t x = 0; x < outLength; ++x) {
            for (int64_t i = 0; i < inner; ++i) {
                double value = extrapolation;
                if (!samples.extrapolate[x]) {
                    value = 0;
                    for (int64_t t = 0; t < samples.taps; ++t) {
                        const int64_t from = samples.index[x * samples.taps + t];
                        value += samples.weight[x * samples.taps + t] *
                                 data[(o * length + from) * inner + i];
                    }
                }
                out[(o * outLength + x) * inner + i] = value;
            }
        }
    }
    shape[axis] = outLength;
    return out;
}

/// The input indices of scales and sizes, by opset form (the opset-10 form has no sizes).
std::pair<size_t, size_t> scalesAndSizesIndex(size_t inputCount) {
    return isOpset10Form(inputCount) ? std::pair<size_t, size_t>{1, SIZE_MAX}
                                     : std::pair<size_t, size_t>{2, 3};
}

/// The constant scales or sizes input; nullptr when absent or empty.
const Tensor* shapeInput(const Graph& graph, const Node& node, size_t index, const char* name, DType dtype) {
    const Value* value = optionalInput(graph, node, index);
    if (value == nullptr || elementCount(value->shape) == 0) return nullptr;
    requireDType(node, name, value->dtype, {dtype});
    if (!value->constant) {
        opError(node, std::string(name) +
                          " decides the output shape and must be a constant "
                          "(an initializer or a Constant node)");
    }
    return &*value->constant;
}

}  // namespace

void inferResize(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, {DType::Fp32});
    const ResizeOptions options = resizeOptions(node);
    const auto [scalesIndex, sizesIndex] = scalesAndSizesIndex(node.inputs.size());
    const Tensor* scales = shapeInput(graph, node, scalesIndex, "scales", DType::Fp32);
    const Tensor* sizes = shapeInput(graph, node, sizesIndex, "sizes", DType::Int64);
    if (options.transform == CoordinateTransform::TfCropAndResize) {
        const Value* roi = optionalInput(graph, node, 1);
        const Shape expected{2 * static_cast<int64_t>(x.shape.size())};
        if (roi == nullptr || roi->shape != expected) {
            opError(node, "tf_crop_and_resize needs roi " + shapeString(expected) +
                              " (starts, then ends, per axis), got " +
                              (roi ? shapeString(roi->shape) : std::string("none")));
        }
        requireDType(node, "roi", roi->dtype, {DType::Fp32});
    }
    setOutput(graph, node, DType::Fp32, resizeTarget(node, x.shape, scales, sizes).output);
}

std::vector<Tensor> interpretResize(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const ResizeOptions options = resizeOptions(node);
    const auto [scalesIndex, sizesIndex] = scalesAndSizesIndex(inputs.size());
    const auto input = [&](size_t index) {
        return index < inputs.size() ? inputs[index] : nullptr;
    };
    const ResizeTarget target = resizeTarget(node, x.shape, input(scalesIndex), input(sizesIndex));
    const Tensor* roi =
        options.transform == CoordinateTransform::TfCropAndResize ? input(1) : nullptr;
    const size_t rank = x.shape.size();

    Shape shape = x.shape;
    const std::span<const float> in = x.as<float>();
    std::vector<double> data(in.begin(), in.end());
    for (size_t axis = rank; axis-- > 0;) {
        const double roiStart = roi ? roi->as<float>()[axis] : 0.0;
        const double roiEnd = roi ? roi->as<float>()[rank + axis] : 1.0;
        const AxisSampling samples = axisSamples(options, x.shape[axis], target.output[axis],
                                                target.scales[axis], roiStart, roiEnd);
        // An axis that keeps its length and samples each element in place is left as it is.
        if (target.output[axis] == shape[axis] && samples.isIdentity()) continue;
        data = resampleAxis(data, shape, axis, samples, options.extrapolation);
    }
    Tensor out = Tensor::zeros(DType::Fp32, target.output);
    std::copy(data.begin(), data.end(), out.as<float>().begin());
    return {std::move(out)};
}

}  // namespace npusim::compiler::ops

namespace npusim::compiler {

bool AxisSampling::isIdentity() const {
    const auto count = static_cast<int64_t>(extrapolate.size());
    for (int64_t o = 0; o < count; ++o) {
        for (int64_t t = 0; t < taps; ++t) {
            const double w = weight[o * taps + t];
            const bool own = index[o * taps + t] == o;
            if (extrapolate[o] || (own ? w != 1 : w != 0)) return false;
        }
    }
    return true;
}

std::optional<ResizeSampling> resizeSampling(const Graph& graph, const Node& node) {
    using namespace ops;
    const Shape& x = graph.value(node.inputs[0]).shape;
    const ResizeOptions options = resizeOptions(node);
    const auto [scalesIndex, sizesIndex] = scalesAndSizesIndex(node.inputs.size());
    const ResizeTarget target = resizeTarget(node, x, shapeInput(graph, node, scalesIndex, "scales", DType::Fp32),
                                             shapeInput(graph, node, sizesIndex, "sizes", DType::Int64));
    const Tensor* roi = nullptr;
    if (options.transform == CoordinateTransform::TfCropAndResize) {
        const Value& value = graph.value(node.inputs[1]);
        if (!value.constant) return std::nullopt;
        roi = &*value.constant;
    }
    ResizeSampling sampling;
    sampling.extrapolation = options.extrapolation;
    const size_t rank = x.size();
    for (size_t axis = 0; axis < rank; ++axis) {
        sampling.axes.push_back(axisSamples(options, x[axis], target.output[axis], target.scales[axis],
                                            roi ? roi->as<float>()[axis] : 0.0,
                                            roi ? roi->as<float>()[rank + axis] : 1.0));
    }
    return sampling;
}

}  // namespace npusim::compiler
