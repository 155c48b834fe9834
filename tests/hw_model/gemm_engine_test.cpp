// The tensor unit's library-backed GEMM gives the reference loops' results: integers bit for
// bit (wrap-around included), floats up to summation order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "arch/float_formats.h"
#include "hw_model/tensor/gemm_engine.h"

namespace npusim::hw {
namespace {

struct Buffers {
    std::vector<std::byte> a, b, c;
};

Buffers randomTile(DType dtype, uint32_t m, uint32_t n, uint32_t k, std::mt19937& rng) {
    const size_t e = dtypeSize(dtype);
    Buffers buffers{std::vector<std::byte>(m * k * e), std::vector<std::byte>(k * n * e), std::vector<std::byte>(m * n * 4)};
    auto fill = [&](std::vector<std::byte>& bytes) {
        for (size_t i = 0; i < bytes.size() / e; ++i) {
            const float value = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 250.0f;
            switch (dtype) {
                case DType::Fp32: std::memcpy(bytes.data() + i * 4, &value, 4); break;
                case DType::Fp16: {
                    const uint16_t half = floatToFp16(value);
                    std::memcpy(bytes.data() + i * 2, &half, 2);
                    break;
                }
                case DType::Bf16: {
                    const uint16_t half = floatToBf16(value);
                    std::memcpy(bytes.data() + i * 2, &half, 2);
                    break;
                }
                default: bytes[i] = static_cast<std::byte>(rng()); break;
            }
        }
    };
    fill(buffers.a);
    fill(buffers.b);
    for (auto& byte : buffers.c) byte = static_cast<std::byte>(rng());
    if (isFloat(dtype)) {  // float partial sums must be numbers
        for (size_t i = 0; i < m * n; ++i) {
            const float value = static_cast<float>(rng() % 100);
            std::memcpy(buffers.c.data() + i * 4, &value, 4);
        }
    }
    return buffers;
}

TEST(GemmEngine, MatchesTheReferenceOnRandomTiles) {
    std::mt19937 rng(11);
    GemmEngine engine;
    for (DType dtype : {DType::Int8, DType::UInt8, DType::Fp32, DType::Fp16, DType::Bf16}) {
        for (const auto& [m, n, k] : {std::tuple<uint32_t, uint32_t, uint32_t>{1, 1, 1}, {7, 5, 3}, {256, 16, 16}, {64, 128, 128}}) {
            for (bool accumulate : {false, true}) {
                for (int32_t zeroPoint : {0, 3}) {
                    if (isFloat(dtype) && zeroPoint != 0) continue;
                    Buffers buffers = randomTile(dtype, m, n, k, rng);
                    std::vector<std::byte> expected = buffers.c;
                    GemmTile tile{dtype, m, n, k, zeroPoint, -zeroPoint, accumulate, buffers.a.data(), buffers.b.data(), expected.data()};
                    referenceGemmTile(tile);
                    tile.c = buffers.c.data();
                    engine.compute(tile);
                    for (size_t i = 0; i < size_t{m} * n; ++i) {
                        if (isFloat(dtype)) {
                            float x, y;
                            std::memcpy(&x, buffers.c.data() + i * 4, 4);
                            std::memcpy(&y, expected.data() + i * 4, 4);
                            ASSERT_NEAR(x, y, 1e-5 * (std::fabs(y) + k)) << dtypeName(dtype) << " " << m << "x" << n << "x" << k;
                        } else {
                            int32_t x, y;
                            std::memcpy(&x, buffers.c.data() + i * 4, 4);
                            std::memcpy(&y, expected.data() + i * 4, 4);
                            ASSERT_EQ(x, y) << dtypeName(dtype) << " " << m << "x" << n << "x" << k << " zp " << zeroPoint;
                        }
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace npusim::hw
