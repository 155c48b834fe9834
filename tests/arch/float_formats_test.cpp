// fp16/bf16 conversions: exact values, rounding to nearest even, specials.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "arch/float_formats.h"

namespace npusim {
namespace {

TEST(FloatFormats, Fp16RoundTripsEveryFiniteValue) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const float value = fp16ToFloat(static_cast<uint16_t>(bits));
        if (std::isnan(value)) continue;
        EXPECT_EQ(floatToFp16(value), bits) << std::hex << bits;
    }
}

TEST(FloatFormats, Fp16RoundsToNearestEven) {
    EXPECT_EQ(floatToFp16(1.0f), 0x3c00);
    EXPECT_EQ(floatToFp16(1.0f + 1.0f / 2048), 0x3c00);          // tie, keep even
    EXPECT_EQ(floatToFp16(1.0f + 3.0f / 2048), 0x3c02);          // tie, round up to even
    EXPECT_EQ(floatToFp16(65520.0f), 0x7c00);                    // overflows to infinity
    EXPECT_EQ(floatToFp16(-0.0f), 0x8000);
    EXPECT_TRUE(std::isnan(fp16ToFloat(floatToFp16(NAN))));
}

TEST(FloatFormats, Bf16KeepsTheTopHalfRounded) {
    EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
    EXPECT_EQ(bf16ToFloat(0x3f80), 1.0f);
    EXPECT_EQ(floatToBf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, keep even
    EXPECT_EQ(floatToBf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, round to even
    EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(NAN))));
}

}  // namespace
}  // namespace npusim
