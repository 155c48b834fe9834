// The cost model's closed-form array time equals the tile-by-tile sum it stands for.
#include <gtest/gtest.h>

#include "arch/arch_config.h"
#include "compiler/cost_model.h"

namespace npusim::compiler {
namespace {

/// Tile by tile, as the tensor unit issues them: preload, stream and fill/drain per tile;
/// double-buffered, a preload hides behind the previous stream and the pipeline drains once.
double tileByTile(const ArchConfig& config, DType dtype, const GemmBlock& block) {
    const TensorUnitConfig& t = config.tensor;
    const double cpr = t.cyclesPerRow.at(dtype), skew = (t.rows - 1) + (t.cols - 1);
    const bool ws = t.dataflow == Dataflow::WeightStationary;
    double total = 0, previousStream = 0, latency = 0;
    bool first = true;
    forEachArrayTile(t, block, [&](const ArrayTile& tile) {
        const bool accumulate = !(block.firstK && tile.k0 == 0);
        const double preload = ws ? tile.k : (accumulate ? tile.m : 0);
        const double stream = (ws ? tile.m : tile.k) * cpr;
        latency = ws ? skew : skew + tile.m;
        if (t.doubleBuffered) {
            total += (first ? preload : std::max(0.0, preload - previousStream)) + stream;
        } else {
            total += preload + stream + latency;
        }
        previousStream = stream;
        first = false;
    });
    return t.doubleBuffered ? total + latency : total;
}

TEST(CostModel, ClosedFormArrayTimeMatchesTheTileSum) {
    for (const char* dataflow : {"weight_stationary", "output_stationary"}) {
        for (const char* buffered : {"true", "false"}) {
            const ArchConfig config = loadArchConfig(
                "edge", std::vector<std::string>{std::string("tensor.dataflow=") + dataflow,
                                                 std::string("tensor.double_buffered=") + buffered});
            const CostModel model(config);
            for (int64_t m : {1, 5, 16, 37, 64, 256}) {
                for (int64_t n : {3, 16, 40}) {
                    for (int64_t k : {2, 16, 33, 512}) {
                        for (bool firstK : {true, false}) {
                            const GemmBlock block{0, 0, 0, 0, m, n, k, firstK, true};
                            for (DType dtype : {DType::Int8, DType::Fp32}) {
                                EXPECT_DOUBLE_EQ(model.arrayBlockCycles(dtype, block), tileByTile(config, dtype, block))
                                    << dataflow << " buffered=" << buffered << " m=" << m << " n=" << n
                                    << " k=" << k << " firstK=" << firstK;
                            }
                        }
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace npusim::compiler
