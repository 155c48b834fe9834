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

namespace npusim::compiler {
namespace {

TEST(CostModel, LowerBoundNeverExceedsTheEstimate) {
    for (const std::string& preset : archPresetNames()) {
        const ArchConfig config = loadArchConfig(preset, {});
        const CostModel model(config);
        for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{256, 256, 512}, {37, 200, 75}, {1, 64, 1000}}) {
            GemmProblem p;
            p.operandType = DType::Int8;
            p.accumulatorType = DType::Int32;
            p.m = m;
            p.n = n;
            p.k = k;
            p.a.batchOffsets = p.b.batchOffsets = {0};
            for (int64_t mBlock : {16, 64, 256}) {
                for (int64_t nBlock : {16, 48, 128}) {
                    for (int64_t kBlock : {32, 128, 512}) {
                        for (bool doubleBuffer : {true, false}) {
                            const GemmSchedule s{std::min(mBlock, m), std::min(nBlock, n), std::min(kBlock, k),
                                                 GemmLoopOrder::MOuter, doubleBuffer, {}};
                            EXPECT_LE(model.gemmLowerBound(p, s), model.estimateGemm(p, s).totalCycles + 1e-6)
                                << preset << " " << m << "x" << n << "x" << k;
                        }
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace npusim::compiler
