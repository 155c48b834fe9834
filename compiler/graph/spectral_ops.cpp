// DFT and STFT (opset 17): the discrete Fourier transform along one axis of a real or complex
// signal, X[k] = sum over n of x[n] e^(-2 pi i k n / N) (inverse: e^(+...) / N), the signal
// zero-padded or cut to N = dft_length; onesided keeps the first N / 2 + 1 bins. STFT transforms
// frames of frame_length points every frame_step, each multiplied by the window when one is
// given. Computed in double (the angle from k n mod N, so it stays small), rounded once.
#include "compiler/graph/spectral.h"

#include <cmath>
#include <numbers>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// A scalar count from a constant input (dft_length, frame_step, frame_length).
std::optional<int64_t> optionalCount(const Graph& graph, const Node& node, size_t index, const char* what) {
    if (!optionalInput(graph, node, index)) return std::nullopt;
    const std::vector<int64_t> values = constantInts(graph, node, index, what);
    if (values.size() != 1) opError(node, std::string(what) + " must hold one value");
    return values[0];
}

std::optional<int64_t> optionalCount(std::span<const Tensor* const> inputs, size_t index) {
    if (index >= inputs.size() || !inputs[index]) return std::nullopt;
    return integerValues(*inputs[index]).at(0);
}

/// The spectrum of `size` points at `bins` frequencies of a signal of `length` points (the rest
/// zeros) that `at(n)` gives as (real, imaginary).
template <class At>
void transform(int64_t length, int64_t size, int64_t bins, bool inverse, At at, double* out, int64_t outStride) {
    const double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / static_cast<double>(size) : 1.0;
    for (int64_t k = 0; k < bins; ++k) {
        double re = 0, im = 0;
        for (int64_t n = 0; n < std::min(length, size); ++n) {
            const double angle = sign * 2 * std::numbers::pi * static_cast<double>(k * n % size) / static_cast<double>(size);
            const auto [xr, xi] = at(n);
            re += xr * std::cos(angle) - xi * std::sin(angle);
            im += xr * std::sin(angle) + xi * std::cos(angle);
        }
        out[k * outStride] = re * scale;
        out[k * outStride + 1] = im * scale;
    }
}

}  // namespace

DftGeometry dftGeometry(const Node& node, const Shape& input, std::optional<int64_t> dftLength) {
    const auto rank = static_cast<int64_t>(input.size());
    if (rank < 2 || (input.back() != 1 && input.back() != 2)) {
        opError(node, "input must end in a dim of 1 (real) or 2 (complex) components, got " + shapeString(input));
    }
    const int64_t axis = normalizeAxis(node, node.intAttr("axis", 1), rank);
    if (axis == rank - 1) opError(node, "axis " + std::to_string(axis) + " is the components' dim, not a signal's");
    DftGeometry g;
    for (int64_t d = 0; d < rank - 1; ++d) {
        if (d < axis) g.outer *= input[d];
        if (d > axis) g.inner *= input[d];
    }
    g.length = input[axis];
    g.components = input.back();
    g.size = dftLength.value_or(g.length);
    g.inverse = node.intAttr("inverse", 0) != 0;
    const bool onesided = node.intAttr("onesided", 0) != 0;
    if (g.size < 1) opError(node, "dft_length must be at least 1, got " + std::to_string(g.size));
    if (g.inverse && onesided) opError(node, "inverse and onesided cannot both be set");
    g.bins = onesided ? g.size / 2 + 1 : g.size;
    return g;
}

StftGeometry stftGeometry(const Node& node, const Shape& signal, int64_t step, const std::optional<Shape>& window,
                          std::optional<int64_t> frameLength) {
    if (signal.size() != 3 || (signal[2] != 1 && signal[2] != 2)) {
        opError(node, "signal must be [batch, length, 1 or 2], got " + shapeString(signal));
    }
    if (window && window->size() != 1) opError(node, "window must be 1-D, got " + shapeString(*window));
    if (!window && !frameLength) opError(node, "needs a window or a frame_length");
    StftGeometry g{signal[0], signal[1], signal[2], step, window ? (*window)[0] : *frameLength, 1, 1};
    if (window && frameLength && *frameLength != g.frameLength) {
        opError(node, "frame_length " + std::to_string(*frameLength) + " differs from the window's " +
                          std::to_string(g.frameLength));
    }
    if (g.step < 1 || g.frameLength < 1 || g.frameLength > g.length) {
        opError(node, "frame_step " + std::to_string(g.step) + " and frame_length " + std::to_string(g.frameLength) +
                          " must be positive, the frame no longer than the signal (" + std::to_string(g.length) + ")");
    }
    g.frames = (g.length - g.frameLength) / g.step + 1;
    g.bins = node.intAttr("onesided", 1) != 0 ? g.frameLength / 2 + 1 : g.frameLength;
    return g;
}

void inferDft(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "input", x.dtype, kFloatDTypes);
    const DftGeometry g = dftGeometry(node, x.shape, optionalCount(graph, node, 1, "dft_length"));
    Shape out = x.shape;
    out[static_cast<size_t>(normalizeAxis(node, node.intAttr("axis", 1), static_cast<int64_t>(out.size())))] = g.bins;
    out.back() = 2;
    setOutput(graph, node, x.dtype, out);
}

std::vector<Tensor> interpretDft(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const DftGeometry g = dftGeometry(node, x.shape, optionalCount(inputs, 1));
    const std::vector<double> values = floatValues(x);
    std::vector<double> out(static_cast<size_t>(g.outer * g.bins * g.inner * 2));
    for (int64_t o = 0; o < g.outer; ++o) {
        for (int64_t i = 0; i < g.inner; ++i) {
            const auto at = [&](int64_t n) {
                const double* element = values.data() + ((o * g.length + n) * g.inner + i) * g.components;
                return std::pair{element[0], g.components == 2 ? element[1] : 0.0};
            };
            transform(g.length, g.size, g.bins, g.inverse, at, out.data() + (o * g.bins * g.inner + i) * 2, g.inner * 2);
        }
    }
    Shape shape = x.shape;
    shape[static_cast<size_t>(normalizeAxis(node, node.intAttr("axis", 1), static_cast<int64_t>(shape.size())))] = g.bins;
    shape.back() = 2;
    return {floatTensor(x.dtype, shape, out)};
}

void inferStft(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& signal = graph.value(node.inputs[0]);
    requireDType(node, "signal", signal.dtype, kFloatDTypes);
    const Value* window = optionalInput(graph, node, 2);
    if (window) requireSameDType(node, "window", window->dtype, "signal", signal.dtype);
    const StftGeometry g = stftGeometry(node, signal.shape, *optionalCount(graph, node, 1, "frame_step"),
                                        window ? std::optional(window->shape) : std::nullopt,
                                        optionalCount(graph, node, 3, "frame_length"));
    setOutput(graph, node, signal.dtype, {g.batch, g.frames, g.bins, 2});
}

std::vector<Tensor> interpretStft(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& signal = *inputs[0];
    const Tensor* window = inputs.size() > 2 ? inputs[2] : nullptr;
    const StftGeometry g = stftGeometry(node, signal.shape, *optionalCount(inputs, 1),
                                        window ? std::optional(window->shape) : std::nullopt, optionalCount(inputs, 3));
    const std::vector<double> values = floatValues(signal);
    const std::vector<double> weights = window ? floatValues(*window) : std::vector<double>(g.frameLength, 1.0);
    std::vector<double> out(static_cast<size_t>(g.batch * g.frames * g.bins * 2));
    for (int64_t b = 0; b < g.batch; ++b) {
        for (int64_t f = 0; f < g.frames; ++f) {
            const auto at = [&](int64_t n) {
                const double* element = values.data() + (b * g.length + f * g.step + n) * g.components;
                return std::pair{element[0] * weights[n], g.components == 2 ? element[1] * weights[n] : 0.0};
            };
            transform(g.frameLength, g.frameLength, g.bins, false, at, out.data() + (b * g.frames + f) * g.bins * 2, 2);
        }
    }
    return {floatTensor(signal.dtype, {g.batch, g.frames, g.bins, 2}, out)};
}

}  // namespace npusim::compiler::ops
