// Sliding-window geometry of convolution and pooling, and the taps of each output position.
#include "compiler/graph/window_geometry.h"

#include <algorithm>
#include <string>

#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// A per-spatial-dim attribute: `count` positive values, all 1 when absent.
std::vector<int64_t> positiveList(const Node& node, const std::string& key, size_t count) {
    std::vector<int64_t> values = intListAttr(node, key, std::vector<int64_t>(count, 1));
    if (values.size() != count) {
        opError(node, key + " " + shapeString(values) + " must have " + std::to_string(count) +
                          " values, one per spatial dim");
    }
    for (int64_t value : values) {
        if (value < 1) opError(node, key + " " + shapeString(values) + " must be positive");
    }
    return values;
}

}  // namespace

AutoPad autoPadAttr(const Node& node) {
    const std::string autoPad = stringAttr(node, "auto_pad", "NOTSET");
    if (autoPad == "NOTSET") return AutoPad::NotSet;
    if (autoPad == "VALID") return AutoPad::Valid;
    if (autoPad == "SAME_UPPER") return AutoPad::SameUpper;
    if (autoPad == "SAME_LOWER") return AutoPad::SameLower;
    opError(node, "auto_pad '" + autoPad + "' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER");
}

WindowGeometry windowGeometry(const Node& node, const Shape& input, const Shape& kernel,
                              bool ceilMode) {
    const size_t rank = input.size();
    WindowGeometry geometry;
    geometry.input = input;
    geometry.kernel = kernel;
    geometry.strides = positiveList(node, "strides", rank);
    geometry.dilations = positiveList(node, "dilations", rank);

    const std::vector<int64_t> pads = intListAttr(node, "pads", std::vector<int64_t>(2 * rank, 0));
    if (pads.size() != 2 * rank) {
        opError(node, "pads " + shapeString(pads) + " must have " + std::to_string(2 * rank) +
                          " values, a begin and an end per spatial dim");
    }
    if (std::any_of(pads.begin(), pads.end(), [](int64_t pad) { return pad < 0; })) {
        opError(node, "pads " + shapeString(pads) + " must not be negative");
    }
    geometry.padBegin.assign(pads.begin(), pads.begin() + static_cast<int64_t>(rank));
    geometry.padEnd.assign(pads.begin() + static_cast<int64_t>(rank), pads.end());

    const AutoPad autoPad = autoPadAttr(node);
    if (autoPad != AutoPad::NotSet &&
        std::any_of(pads.begin(), pads.end(), [](int64_t pad) { return pad != 0; })) {
        opError(node, "pads " + shapeString(pads) + " cannot be combined with auto_pad " +
                          stringAttr(node, "auto_pad", ""));
    }

    for (size_t i = 0; i < rank; ++i) {
        const int64_t extent = (kernel[i] - 1) * geometry.dilations[i] + 1;
        if (autoPad == AutoPad::SameUpper || autoPad == AutoPad::SameLower) {
            // The output keeps ceil(input / stride) positions; the padding that takes is split
            // evenly, the odd element going to the end (SAME_UPPER) or the beginning.
            const int64_t outputSize = ceilDiv(input[i], geometry.strides[i]);
            const int64_t total =
                std::max<int64_t>(0, (outputSize - 1) * geometry.strides[i] + extent - input[i]);
            const int64_t half = total / 2;
            geometry.padBegin[i] = autoPad == AutoPad::SameUpper ? half : total - half;
            geometry.padEnd[i] = total - geometry.padBegin[i];
        }
        const int64_t span = input[i] + geometry.padBegin[i] + geometry.padEnd[i] - extent;
        if (span < 0) {
            opError(node, "the window (kernel " + shapeString(kernel) + ", dilations " +
                              shapeString(geometry.dilations) +
                              ") is larger than the padded input " + shapeString(input) +
                              " in spatial dim " + std::to_string(i));
        }
        geometry.output.push_back(
            (ceilMode ? ceilDiv(span, geometry.strides[i]) : span / geometry.strides[i]) + 1);
    }
    return geometry;
}

WindowTaps::WindowTaps(const WindowGeometry& geometry)
    : geometry_(geometry),
      inputStrides_(rowMajorStrides(geometry.input)),
      start_(geometry.input.size()),
      kernelIndex_(geometry.input.size()),
      kernelSize_(elementCount(geometry.kernel)) {
    taps_.reserve(static_cast<size_t>(kernelSize_));
}

std::span<const WindowTap> WindowTaps::at(int64_t outputIndex) {
    const WindowGeometry& g = geometry_;
    const size_t rank = g.input.size();
    for (size_t i = rank; i-- > 0;) {
        start_[i] = (outputIndex % g.output[i]) * g.strides[i] - g.padBegin[i];
        outputIndex /= g.output[i];
    }
    std::fill(kernelIndex_.begin(), kernelIndex_.end(), 0);
    taps_.clear();
    paddedCount_ = 0;
    for (int64_t kernel = 0; kernel < kernelSize_; ++kernel) {
        bool inInput = true, inPaddedInput = true;
        int64_t input = 0;
        for (size_t i = 0; i < rank; ++i) {
            const int64_t coordinate = start_[i] + kernelIndex_[i] * g.dilations[i];
            inInput = inInput && coordinate >= 0 && coordinate < g.input[i];
            inPaddedInput = inPaddedInput && coordinate >= -g.padBegin[i] &&
                            coordinate < g.input[i] + g.padEnd[i];
            input += coordinate * inputStrides_[i];
        }
        if (inInput) taps_.push_back({kernel, input});
        if (inPaddedInput) ++paddedCount_;
        for (size_t i = rank; i-- > 0;) {
            if (++kernelIndex_[i] < g.kernel[i]) break;
            kernelIndex_[i] = 0;
        }
    }
    return taps_;
}

}  // namespace npusim::compiler::ops
