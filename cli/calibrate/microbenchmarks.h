// The microbenchmark suite of cost-model calibration: GEMM (fp32 and int8), convolution,
// elementwise vector, data-movement (DMA) and sliding-window (depthwise convolution, max pool)
// ops, with shapes scaled to the architecture's array and lanes so that they spread over the
// space its tiler explores.
#pragma once

#include <string>
#include <vector>

#include "arch/arch_config.h"

namespace npusim::cli {

struct Microbenchmark {
    std::string name;     ///< e.g. "gemm_fp32_128x64x256"
    std::string graphIr;  ///< a graph in the graph IR's text form (weights as zero constants)
    /// Whether its single op is run with several tile candidates (their ranking is scored), or
    /// with the compiler's own pick only.
    bool candidates = true;
};

std::vector<Microbenchmark> microbenchmarkSuite(const ArchConfig& config);

}  // namespace npusim::cli
