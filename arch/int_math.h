// Integer rounding shared by every layer: divisions that round one way, and alignment.
#pragma once

#include <cstdint>

namespace npusim {

/// a / b rounded towards negative infinity (Python's //), for b > 0 and any sign of a.
constexpr int64_t floorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0 ? 1 : 0); }
/// a / b rounded towards positive infinity, for b > 0 and any sign of a.
constexpr int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 && a > 0 ? 1 : 0); }
/// `value` rounded up to a multiple of `alignment` (> 0).
constexpr uint64_t alignUp(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

}  // namespace npusim
