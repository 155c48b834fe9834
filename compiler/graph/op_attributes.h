// Attributes that an op's reference semantics and its CPU kernel (or the pass that rewrites it)
// both read, decoded and checked once: each decoder throws a located diagnostic for a value the
// op does not take. Each is defined in its op's file.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler::ops {

/// ReverseSequence's time_axis and batch_axis: 0 and 1, either way round.
struct ReverseSequenceAxes {
    int64_t time = 0, batch = 1;
};
ReverseSequenceAxes reverseSequenceAxes(const Node& node);

/// MeanVarianceNormalization's axes (default [0, 2, 3], NCHW's), each in [0, rank).
std::vector<int64_t> meanVarianceAxes(const Node& node, int64_t rank);

/// Upsample's scales attribute (opset 7) as Resize's fp32 scales input; nullopt when absent.
std::optional<Tensor> upsampleScalesAttribute(const Node& node);

/// How ScatterElements and ScatterND combine an update with the element it lands on.
enum class ScatterReduction : uint8_t { None, Add, Mul, Max, Min };
ScatterReduction scatterReduction(const Node& node);

/// GridSample's mode, padding_mode and align_corners.
enum class GridMode : uint8_t { Bilinear, Nearest, Bicubic };
enum class GridPadding : uint8_t { Zeros, Border, Reflection };
struct GridSampleOptions {
    GridMode mode = GridMode::Bilinear;
    GridPadding padding = GridPadding::Zeros;
    bool alignCorners = false;
};
GridSampleOptions gridSampleOptions(const Node& node);

/// RoiAlign's attributes: mode max (else avg), coordinate_transformation_mode half_pixel (else
/// output_half_pixel), the output bins, the samples per bin and axis (0: adaptive) and the scale
/// of the regions' coordinates.
struct RoiAlignOptions {
    bool max = false, halfPixel = true;
    int64_t height = 1, width = 1, samplingRatio = 0;
    double spatialScale = 1.0;
};
RoiAlignOptions roiAlignOptions(const Node& node);

/// MaxUnpool's unpooled shape [N, C, (in - 1) * stride + kernel - pads] for X of `x`, which its
/// indices address.
Shape maxUnpoolShape(const Node& node, const Shape& x);

/// TfIdfVectorizer's integer pool: the n-grams counted (lengths min_gram_length to
/// max_gram_length, each with its output column; of repeated n-grams the last one counts), the
/// skips allowed between an n-gram's items, the weighting and its weights.
struct TfIdfPool {
    enum class Mode : uint8_t { TermFrequency, InverseDocumentFrequency, Both } mode = Mode::TermFrequency;
    struct Ngram {
        std::vector<int64_t> items;
        int64_t column = 0;
    };
    std::vector<Ngram> ngrams;
    int64_t maxSkip = 0, minLength = 1, columns = 0;
    std::vector<double> weights;  ///< per column; empty: 1 each
};
TfIdfPool tfIdfPool(const Node& node);

/// LRN's attributes: x / (bias + alpha / size * the sum of squares of the `size` channels from
/// c - (size - 1) / 2 on) ^ beta.
struct LrnParameters {
    double alpha = 1e-4, beta = 0.75, bias = 1.0;
    int64_t size = 1;
};
LrnParameters lrnParameters(const Node& node);

}  // namespace npusim::compiler::ops
