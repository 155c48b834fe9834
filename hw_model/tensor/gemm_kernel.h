// The tensor unit's arithmetic on packed tiles, defined by plain loops (the reference every
// faster implementation, GemmEngine, is tested against).
#pragma once

#include <cstddef>
#include <cstdint>

#include "arch/dtype.h"

namespace npusim::hw {

/// Packed operands of one GEMM tile: A is m x k, B is k x n (dtype elements, rows back to
/// back), C is m x n accumulator elements (int32 for integer dtypes, fp32 otherwise).
struct GemmTile {
    DType dtype = DType::Int8;
    uint32_t m = 0, n = 0, k = 0;
    int32_t aZeroPoint = 0, bZeroPoint = 0;  ///< integer dtypes only
    bool accumulate = false;
    const std::byte* a = nullptr;
    const std::byte* b = nullptr;
    std::byte* c = nullptr;
};

/// C = (accumulate ? C : 0) + sum_p (A[i][p] - za) * (B[p][j] - zb). Integer dtypes accumulate
/// exactly in int32 (wrapping); float dtypes widen to fp32 and accumulate the k products in
/// order before adding them to C.
void referenceGemmTile(const GemmTile& tile);

}  // namespace npusim::hw
