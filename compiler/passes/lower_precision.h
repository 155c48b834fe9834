// lower-precision: the graph's GEMMs, and the data movement between them, at a 16-bit float
// precision, with explicit Casts where they meet fp32 ops (lower_precision.cpp).
#pragma once

#include "compiler/graph/graph.h"
#include "compiler/graph/precision.h"

namespace npusim::compiler {

/// Rewrites `graph` for `options.precision` (bf16 or fp16; fp32 leaves it as declared).
void lowerPrecision(Graph& graph, const PrecisionOptions& options);

}  // namespace npusim::compiler
