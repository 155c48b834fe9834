// Sliding-window geometry shared by convolution and pooling: kernel, strides, dilations and
// padding over the spatial dims (ONNX's auto_pad included), the output size, and the kernel taps
// of each output position. Internal to compiler/graph.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler::ops {

/// ONNX's auto_pad: the pads attribute (NOTSET), no padding (VALID), or the padding that keeps
/// ceil(input / stride) outputs, split evenly with an odd element at the end (SAME_UPPER) or
/// the beginning (SAME_LOWER).
enum class AutoPad { NotSet, Valid, SameUpper, SameLower };

/// The node's auto_pad attribute (NOTSET when absent); opError for another value.
AutoPad autoPadAttr(const Node& node);

/// How a window slides over the spatial dims; every vector has one entry per spatial dim.
/// Output position o reads input coordinate o * stride - padBegin + k * dilation for kernel
/// index k; coordinates outside [0, input) are padding.
struct WindowGeometry {
    Shape input, kernel, output;
    std::vector<int64_t> strides, dilations, padBegin, padEnd;
};

/// The geometry of a convolution or pooling node over the spatial dims `input` with the spatial
/// `kernel`, from the node's strides, dilations, pads and auto_pad attributes (NOTSET, VALID,
/// SAME_UPPER, SAME_LOWER). `ceilMode` rounds the output size up (the pools' ceil_mode).
/// opError for attributes of the wrong length or range, or a window larger than the padded input.
WindowGeometry windowGeometry(const Node& node, const Shape& input, const Shape& kernel,
                              bool ceilMode);

/// One kernel tap of an output position: flat row-major offsets into the spatial kernel and the
/// spatial input.
struct WindowTap {
    int64_t kernel = 0;
    int64_t input = 0;
};

/// The kernel taps of each output position that fall inside the input, in row-major kernel order.
/// Reuses one buffer, so a walk over every output position allocates nothing per position.
class WindowTaps {
  public:
    /// Walks `geometry`, which must outlive the walk.
    explicit WindowTaps(const WindowGeometry& geometry);

    /// The in-input taps of output position `outputIndex` (row-major over the output dims); the
    /// span is valid until the next call.
    std::span<const WindowTap> at(int64_t outputIndex);
    /// How many taps of the last position fall inside the padded input [-padBegin, input+padEnd).
    int64_t paddedCount() const { return paddedCount_; }

  private:
    const WindowGeometry& geometry_;
    std::vector<int64_t> inputStrides_, start_, kernelIndex_;
    std::vector<WindowTap> taps_;
    int64_t kernelSize_ = 1;
    int64_t paddedCount_ = 0;
};

}  // namespace npusim::compiler::ops
