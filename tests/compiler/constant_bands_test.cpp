// Constant operands in column bands: every block of the schedule's width, read the way the
// GEMM's DMA reads it (storedOffset, storedRowStride), finds the elements of the row-major
// matrix, including a narrower last band and a second matrix of a batch.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "compiler/tile/constant_bands.h"

namespace npusim::compiler {
namespace {

TEST(ConstantBands, BlocksOfTheBandWidthAreRunsOfTheRowMajorElements) {
    const ConstantBands bands{5, 7, 3};  // bands of 3, 3 and 1 columns
    const int64_t matrices = 2, matrix = bands.rows * bands.cols;
    std::vector<float> rowMajor(static_cast<size_t>(matrices * matrix));
    std::iota(rowMajor.begin(), rowMajor.end(), 0.0f);
    std::vector<std::byte> image(rowMajor.size() * sizeof(float));
    writeBanded(std::as_bytes(std::span(rowMajor)), bands, sizeof(float), image);
    ASSERT_EQ(image.size(), rowMajor.size() * sizeof(float));
    std::vector<float> stored(rowMajor.size());
    std::memcpy(stored.data(), image.data(), image.size());

    GemmOperand operand;
    operand.bandColumns = bands.bandColumns;
    for (int64_t m = 0; m < matrices; ++m) {
        for (int64_t col0 = 0; col0 < bands.cols; col0 += bands.bandColumns) {
            const int64_t width = std::min(bands.bandColumns, bands.cols - col0);
            const int64_t stride = storedRowStride(operand, bands.rows, bands.cols, col0);
            EXPECT_EQ(stride, width);
            const int64_t start = storedOffset(operand, bands.rows, bands.cols, 0, col0);
            for (int64_t r = 0; r < bands.rows; ++r) {
                for (int64_t c = 0; c < width; ++c) {
                    // One run: row r of the block follows row r-1 directly.
                    const auto at = static_cast<size_t>(m * matrix + start + r * stride + c);
                    EXPECT_EQ(stored[at], rowMajor[static_cast<size_t>(m * matrix + r * bands.cols + col0 + c)]);
                }
            }
        }
    }
}

TEST(ConstantBands, BytesOfPartMatricesAreRefused) {
    const std::vector<std::byte> bytes(4 * 10);
    std::vector<std::byte> out(bytes.size());
    EXPECT_THROW(writeBanded(bytes, {3, 4, 2}, 4, out), std::logic_error);
}

}  // namespace
}  // namespace npusim::compiler
