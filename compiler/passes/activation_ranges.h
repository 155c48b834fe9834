// int8 calibration: the range each activation takes over the calibration samples, measured by
// the reference interpreter, and the scale and zero point that map it onto int8
// (activation_ranges.cpp; quantize_int8.cpp uses them).
#pragma once

#include <map>
#include <set>
#include <span>
#include <string>

#include "compiler/graph/graph.h"
#include "compiler/graph/precision.h"

namespace npusim::compiler {

/// One calibration sample: a tensor per graph input, keyed by its name.
using CalibrationSet = std::map<std::string, Tensor>;

struct ActivationRange {
    double min = 0, max = 0;
};

/// An int8 activation's scale and zero point.
struct QuantParams {
    float scale = 1.0f;
    int8_t zeroPoint = 0;
};

/// The parameters that map `range` (widened to hold 0) onto int8: asymmetric, the whole int8
/// range for [min, max]; symmetric, zero point 0 and a scale for the larger magnitude.
QuantParams activationParams(ActivationRange range, ActivationScheme scheme);

/// The range of each of `values` (fp32 graph inputs or node results) over `samples`: the graph
/// interpreted on each; the smallest and largest element over the samples, or the mean over
/// them of each sample's low and high percentile. InputError names a value with NaN or
/// infinite elements. A value no sample computes has no entry.
std::map<ValueId, ActivationRange> calibrateRanges(const Graph& graph, const std::set<ValueId>& values,
                                                   std::span<const CalibrationSet> samples, const QuantizationOptions& options);

}  // namespace npusim::compiler
