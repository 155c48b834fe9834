// gemmArrayCycles: the array's shape-aware bound, worked by hand on the edge preset (16 x 16,
// weight stationary, double-buffered, fp32 rows every 4 cycles, fill and drain 15 + 15).
#include <gtest/gtest.h>

#include "arch/arch_config.h"
#include "arch/tile_timing.h"

namespace npusim {
namespace {

TEST(GemmArrayCycles, StreamBoundTilesTakeTheirRowsInTheShorterOrientation) {
    const ArchConfig edge = loadArchConfig("edge", {});
    // m 4, k 40, n 20: ceil(20/16) = 2 columns of ceil(40/16) = 3 tiles streaming 4 rows (16
    // cycles each): max(40, 48) = 48 a column, 96 + 30. Exchanged (m 20, n 4): one column of
    // 3 tiles streaming 80 cycles each, 240 + 30.
    EXPECT_EQ(gemmArrayCycles(edge.tensor, DType::Fp32, 1, 4, 40, 20), 126u);
    // Batches one after another, the drain once: 3 x 96 + 30.
    EXPECT_EQ(gemmArrayCycles(edge.tensor, DType::Fp32, 3, 4, 40, 20), 318u);
}

TEST(GemmArrayCycles, PreloadBoundTilesTakeTheirWeightsRows) {
    const ArchConfig edge = loadArchConfig("edge", {});
    // m 2, k 40, n 16: 3 tiles of 8-cycle streams, but 40 rows of weights to preload: 40 + 30.
    EXPECT_EQ(gemmArrayCycles(edge.tensor, DType::Fp32, 1, 2, 40, 16), 70u);
    // int8 streams a row a cycle: m 64, k 16, n 16 is one tile of 64 cycles.
    EXPECT_EQ(gemmArrayCycles(edge.tensor, DType::Int8, 1, 64, 16, 16), 94u);
}

TEST(GemmArrayCycles, NeverBelowThePlainRoofline) {
    const ArchConfig edge = loadArchConfig("edge", {});
    for (uint64_t m : {1u, 7u, 16u, 100u}) {
        for (uint64_t k : {1u, 15u, 64u, 147u}) {
            for (uint64_t n : {1u, 17u, 256u}) {
                const double plain = static_cast<double>(m * k * n) / edge.tensor.peakMacsPerCycle(DType::Fp32);
                EXPECT_GE(static_cast<double>(gemmArrayCycles(edge.tensor, DType::Fp32, 1, m, k, n)), plain)
                    << m << " x " << k << " x " << n;
            }
        }
    }
}

TEST(GemmArrayCycles, SingleBufferedTilesEachPayPreloadAndDrain) {
    ArchConfig edge = loadArchConfig("edge", {});
    edge.tensor.doubleBuffered = false;
    // m 4, k 40, n 20: 2 columns x (40 preload + 3 x (16 stream + 30 drain)) = 356; exchanged,
    // 1 x (40 + 3 x (80 + 30)) = 370.
    EXPECT_EQ(gemmArrayCycles(edge.tensor, DType::Fp32, 1, 4, 40, 20), 356u);
    edge.tensor.dataflow = Dataflow::OutputStationary;
    // 1 x 2 result tiles streaming 40 k steps (160 cycles) + 30 each, and 2 columns x 4 rows
    // leaving: 380 + 8; exchanged: 2 x 1 tiles, 380 + 20.
    EXPECT_EQ(gemmArrayCycles(edge.tensor, DType::Fp32, 1, 4, 40, 20), 388u);
}

}  // namespace
}  // namespace npusim
