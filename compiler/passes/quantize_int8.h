// quantize-int8: post-training quantisation of a float model's GEMMs and convolutions to int8,
// with activation ranges measured by running the reference interpreter on calibration inputs
// (quantize_int8.cpp).
#pragma once

#include <map>
#include <span>
#include <string>

#include "compiler/graph/graph.h"
#include "compiler/graph/precision.h"
#include "compiler/passes/activation_ranges.h"

namespace npusim::compiler {

/// Rewrites each fp32 Conv (not depthwise) and MatMul/Gemm of `graph` that no override keeps
/// at fp32 into the integer graph the int8 path runs: QuantizeLinear of its input, a
/// QLinearConv or a MatMulInteger with its int32 bias and requantisation, int8 results, and a
/// DequantizeLinear where an fp32 op reads them. Ranges come from interpreting `graph` on each
/// of `calibration` (InputError when it is empty).
void quantizeInt8(Graph& graph, const PrecisionOptions& options, std::span<const CalibrationSet> calibration);

}  // namespace npusim::compiler
