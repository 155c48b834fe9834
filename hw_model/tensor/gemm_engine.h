// The tensor unit's host arithmetic: GEMM tiles through oneDNN (chosen by measurement, see
// tests/bench/gemm_kernels.cpp), with the reference loops for what oneDNN does not cover
// (uint8 operands, zero points). Integer results are exact; fp32 results are fp32 sums whose
// order of accumulation is the library's.
#pragma once

#include <memory>

#include "hw_model/tensor/gemm_kernel.h"

namespace npusim::hw {

class GemmEngine {
public:
    GemmEngine();
    ~GemmEngine();
    GemmEngine(const GemmEngine&) = delete;
    GemmEngine& operator=(const GemmEngine&) = delete;

    /// The same result as referenceGemmTile (floats up to summation order).
    void compute(const GemmTile& tile);

private:
    struct Library;  ///< oneDNN state: engine, stream, primitives by tile shape
    std::unique_ptr<Library> library_;
};

}  // namespace npusim::hw
