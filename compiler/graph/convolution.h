// The convolution shared by Conv, ConvInteger and QLinearConv: operand shape checks and the
// reference loop nest over N-D spatial windows, grouped (depthwise included).
#pragma once

#include <cstdint>
#include <span>

#include "compiler/graph/window_geometry.h"

namespace npusim::compiler::ops {

/// The dims of a grouped convolution: X is [N, C, in...], W is [M, C/group, kernel...] and the
/// output Y is [N, M, out...]; output channel m reads the input channels of its group,
/// m / (M/group).
struct ConvShape {
    int64_t batch = 0, inChannels = 0, outChannels = 0, group = 1;
    WindowGeometry window;
    Shape output;
};

/// Checks X and W against each other and against the node's group and kernel_shape attributes,
/// and derives the output shape from the window attributes; opError naming both shapes when
/// they do not fit.
ConvShape convShape(const Node& node, const Shape& x, const Shape& w);

/// Whether a Conv is depthwise: one group per input channel (more than one), each output
/// channel reading one input channel (M = C * multiplier), in fp32. The vector unit runs
/// these whole (depthwiseProblemsFor); other convolutions become GEMMs.
bool isDepthwiseConvolution(const Graph& graph, const Node& node);

/// Checks that a bias B is [M], one value per output channel.
void checkConvBias(const Node& node, const Shape& bias, int64_t outChannels);

/// Sets every element of Y ([N, M, spatial...] with `planeSize` spatial elements) to its output
/// channel's bias.
template <class T>
void seedWithBias(std::span<T> y, std::span<const T> bias, int64_t planeSize) {
    const auto channels = static_cast<int64_t>(bias.size());
    for (size_t i = 0; i < y.size(); ++i) {
        y[i] = bias[(static_cast<int64_t>(i) / planeSize) % channels];
    }
}

/// Y[n, m, o] += sum over the input channels c of m's group and the in-input taps t of output
/// position o of X[n, c, t.input] * W[m, c, t.kernel]; padding contributes nothing. Y holds the
/// bias (or zeros) on entry. The int32 form wraps modulo 2^32, as the tensor unit's int32
/// accumulator does.
void convolve(const ConvShape& shape, std::span<const float> x, std::span<const float> w,
              std::span<float> y);
void convolve(const ConvShape& shape, std::span<const int32_t> x, std::span<const int32_t> w,
              std::span<int32_t> y);

}  // namespace npusim::compiler::ops
