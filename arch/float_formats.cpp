// fp16 and bf16 conversions (round to nearest even; NaN stays NaN).
#include "arch/float_formats.h"

#include <bit>
#include <cmath>

namespace npusim {

float fp16ToFloat(uint16_t bits) {
    const uint32_t sign = (bits >> 15) & 1u;
    const uint32_t exponent = (bits >> 10) & 0x1fu;
    const uint32_t mantissa = bits & 0x3ffu;
    float magnitude;
    if (exponent == 0) {
        magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    } else if (exponent == 31) {
        magnitude = mantissa ? NAN : INFINITY;
    } else {
        magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
    }
    return sign ? -magnitude : magnitude;
}

uint16_t floatToFp16(float value) {
    const uint32_t x = std::bit_cast<uint32_t>(value);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t absBits = x & 0x7fffffffu;
    if (absBits >= 0x7f800000u) {  // inf or NaN
        return sign | (absBits > 0x7f800000u ? 0x7e00u : 0x7c00u);
    }
    if (absBits >= 0x477ff000u) return sign | 0x7c00u;  // rounds to infinity
    if (absBits < 0x38800000u) {                        // subnormal or zero in fp16
        const float magnitude = std::bit_cast<float>(absBits);
        const float scaled = std::nearbyint(magnitude * 16777216.0f);  // 2^24, ties to even
        return sign | static_cast<uint16_t>(scaled);
    }
    const uint32_t exponent = (absBits >> 23) - 112;
    const uint32_t mantissa = absBits & 0x7fffffu;
    uint32_t half = (exponent << 10) | (mantissa >> 13);
    const uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
    return sign | static_cast<uint16_t>(half);
}

float bf16ToFloat(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

uint16_t floatToBf16(float value) {
    const uint32_t x = std::bit_cast<uint32_t>(value);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    const uint32_t roundingBias = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + roundingBias) >> 16);
}

}  // namespace npusim
