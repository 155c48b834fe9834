// Zeroed regions: zero when mapped, writable throughout, huge ones aligned to huge pages, and
// moved without a second mapping.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "hw_model/common/zeroed_region.h"

namespace npusim::hw {
namespace {

bool allZero(const ZeroedRegion& region) {
    return std::all_of(region.data(), region.data() + region.size(), [](std::byte b) { return b == std::byte{0}; });
}

TEST(ZeroedRegion, SmallAndHugeRegionsAreZeroAndWritable) {
    for (const size_t bytes : {size_t{1}, size_t{4097}, kHugePageBytes, 3 * kHugePageBytes + 5}) {
        ZeroedRegion region(bytes);
        ASSERT_EQ(region.size(), bytes);
        EXPECT_TRUE(allZero(region));
        region.data()[0] = std::byte{1};
        region.data()[bytes - 1] = std::byte{2};
        EXPECT_EQ(region.data()[bytes - 1], std::byte{2});
        if (bytes >= kHugePageBytes) {
            EXPECT_EQ(reinterpret_cast<uintptr_t>(region.data()) % kHugePageBytes, 0u);
        }
    }
}

TEST(ZeroedRegion, MovesKeepTheBytesAndLeaveTheSourceEmpty) {
    ZeroedRegion a(kHugePageBytes);
    a.data()[10] = std::byte{9};
    std::byte* const data = a.data();
    ZeroedRegion b(std::move(a));
    EXPECT_TRUE(a.empty());
    EXPECT_EQ(b.data(), data);
    EXPECT_EQ(b.data()[10], std::byte{9});
    ZeroedRegion c(16);
    c = std::move(b);
    EXPECT_EQ(c.data()[10], std::byte{9});
    EXPECT_EQ(ZeroedRegion().data(), nullptr);
}

}  // namespace
}  // namespace npusim::hw
