// The cost model's closed-form array time equals the tile-by-tile sum it stands for.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>

#include "arch/arch_config.h"
#include "compiler/cost/cost_model.h"
#include "compiler/tiling/tiling.h"

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
                                const CostModel::ArrayTime time = model.arrayBlockTime(dtype, block);
                                EXPECT_DOUBLE_EQ(time.occupancy + time.firstPreload + time.latency,
                                                 tileByTile(config, dtype, block))
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
                                                 GemmLoopOrder::MOuter, doubleBuffer, false, {}};
                            EXPECT_LE(model.gemmLowerBound(p, s), model.estimateGemm(p, s).totalCycles + 1e-6)
                                << preset << " " << m << "x" << n << "x" << k;
                        }
                    }
                }
            }
        }
    }
}

/// A 512 x 1024 x 512 fp32 GEMM, operands in DRAM.
GemmProblem largeGemm() {
    GemmProblem p;
    p.operandType = DType::Fp32;
    p.accumulatorType = DType::Fp32;
    p.m = 512;
    p.n = 1024;
    p.k = 512;
    p.a.batchOffsets = p.b.batchOffsets = {0};
    return p;
}

TEST(CostModel, EnergyCountsTheMacsAndGrowsWithTheDramBytes) {
    const ArchConfig config = loadArchConfig("edge", {});
    const CostModel model(config);
    const GemmProblem p = largeGemm();
    const double macPj = config.energy.macPj.at(DType::Fp32) * static_cast<double>(p.m * p.n * p.k);
    std::optional<CostEstimate> fewest, most;
    for (int64_t mBlock : {16, 64, 256}) {
        const GemmSchedule s{mBlock, 64, 64, GemmLoopOrder::MOuter, true, false, {}};
        const CostEstimate e = model.estimateGemm(p, s);
        EXPECT_GT(e.energyPj, macPj);
        if (!fewest || e.dramBytes < fewest->dramBytes) fewest = e;
        if (!most || e.dramBytes > most->dramBytes) most = e;
    }
    ASSERT_LT(fewest->dramBytes, most->dramBytes);
    // Each DRAM byte costs at least the DRAM's energy per byte.
    EXPECT_GE(most->energyPj - fewest->energyPj,
              static_cast<double>(most->dramBytes - fewest->dramBytes) * config.energy.dramPjPerByte);
}

TEST(CostModel, EachObjectiveChoosesTheScheduleBestByIt) {
    const ArchConfig config = loadArchConfig("edge", {});
    const GemmProblem p = largeGemm();
    std::map<Objective, GemmSchedule> chosen;
    for (Objective objective : {Objective::Cycles, Objective::Energy, Objective::Edp}) {
        CostParams params;
        params.objective = objective;
        const std::optional<GemmSchedule> s = chooseGemmSchedule(p, config, CostModel(config, params));
        ASSERT_TRUE(s);
        chosen.emplace(objective, *s);
    }
    const CostEstimate& cycles = chosen.at(Objective::Cycles).estimate;
    const CostEstimate& energy = chosen.at(Objective::Energy).estimate;
    const CostEstimate& edp = chosen.at(Objective::Edp).estimate;
    EXPECT_LE(cycles.totalCycles, energy.totalCycles);
    EXPECT_LE(cycles.totalCycles, edp.totalCycles);
    EXPECT_LT(energy.energyPj, cycles.energyPj);  // this GEMM has a cheaper schedule for energy
    EXPECT_LE(energy.energyPj, edp.energyPj);
    EXPECT_LE(edp.totalCycles * edp.energyPj, cycles.totalCycles * cycles.energyPj);
    EXPECT_LE(edp.totalCycles * edp.energyPj, energy.totalCycles * energy.energyPj);
    EXPECT_EQ(parseObjective("edp"), Objective::Edp);
    EXPECT_EQ(parseObjective("power"), std::nullopt);
}

}  // namespace
}  // namespace npusim::compiler

#include "compiler/graph/parser.h"
#include "compiler/tiling/vector_lowering.h"

namespace npusim::compiler {
namespace {

/// A Relu over rows x cols: one buffer, loaded, computed in place and stored.
VectorProblem reluProblem(int64_t rows, int64_t cols) {
    const std::string type = "fp32[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
    const Graph graph = parseGraph("graph @g(%a: " + type + ") -> (%y: " + type + ") {\n  %y = Relu(%a)\n  return %y\n}\n");
    std::vector<VectorProblem> problems = vectorProblemsFor(graph, graph.nodes.at(0), 0);
    EXPECT_EQ(problems.size(), 1u);
    return problems.at(0);
}

TEST(CostModel, BlocksInPlaceWaitForTheirSlot) {
    // Each slot's blocks load, compute and store one after another: with two slots, N blocks
    // take at least N/2 such chains, however fast the engines overlap.
    const ArchConfig config = loadArchConfig("server", {});
    const CostModel model(config);
    const VectorProblem p = reluProblem(256, 2048);
    ASSERT_EQ(p.loads.size(), 1u);
    ASSERT_EQ(p.stores.size(), 1u);
    ASSERT_EQ(p.loads[0].buffer, p.stores[0].buffer);
    for (int64_t extent : {1, 4, 16, 64}) {
        for (bool doubleBuffer : {true, false}) {
            const VectorSchedule s{0, extent, doubleBuffer, {}};
            const CostEstimate e = model.estimateVector(p, s);
            const double blocks = e.features[static_cast<size_t>(CostFeature::Blocks)];
            const uint64_t bytes = e.dramBytes / static_cast<uint64_t>(blocks) / 2;  // loaded, then stored
            ASSERT_EQ(static_cast<uint64_t>(blocks) * bytes * 2, 2u * 256 * 2048 * 4);
            const double chain = 2 * (model.firstByteCycles() + model.dmaCycles(1, bytes, bytes)) +
                                 model.vectorCycles(isa::VectorOp::Relu, static_cast<int64_t>(bytes / 4));
            EXPECT_GE(e.totalCycles, std::ceil(blocks / (doubleBuffer ? 2 : 1)) * chain - 1e-6) << blocks << " blocks";
            EXPECT_LE(e.totalCycles, blocks * chain + e.overheadCycles + 1e-6) << blocks << " blocks";
        }
    }
}

TEST(CostModel, TransfersOfResidentTensorsStayOnChip) {
    const ArchConfig config = loadArchConfig("mobile", {});
    const VectorProblem p = reluProblem(64, 512);
    const VectorSchedule s{0, 16, true, {}};
    const CostEstimate inDram = CostModel(config).estimateVector(p, s);
    const CostEstimate onChip =
        CostModel(config, {}, {p.loads[0].view.value, p.stores[0].view.value}).estimateVector(p, s);
    EXPECT_EQ(inDram.dramBytes, 2u * 64 * 512 * 4);
    EXPECT_EQ(onChip.dramBytes, 0u);
    EXPECT_EQ(onChip.commands, inDram.commands);
    EXPECT_LT(onChip.totalCycles, inDram.totalCycles / 4);
}

}  // namespace
}  // namespace npusim::compiler

namespace npusim::compiler {
namespace {

TEST(CostModel, WindowPlanesStartTheirRowsInDifferentBanks) {
    // A 16x16 padded plane is 1 KiB: at that pitch every channel's row would start in bank 0
    // of every preset. The window kernels widen it to an odd number of bank widths.
    const Graph graph = parseGraph(
        "graph @g(%x: fp32[1,64,14,14], %w: fp32[64,1,3,3]) -> (%y: fp32[1,64,7,7]) {\n"
        "  %y = Conv(%x, %w) {group = 64, kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}\n"
        "  return %y\n}\n");
    for (const char* preset : {"tiny", "edge", "mobile", "server"}) {
        const ArchConfig config = loadArchConfig(preset, {});
        const std::vector<VectorProblem> problems = windowProblemsFor(graph, graph.nodes.at(0), 0, config.sram);
        ASSERT_FALSE(problems.empty()) << preset;
        for (const VectorProblem& p : problems) {
            for (const VectorLoad& load : p.loads) {
                if (!load.plane || p.padRows) continue;
                const int64_t bytes = p.buffers[load.buffer].width * 4;
                EXPECT_GE(bytes, 16 * 16 * 4) << preset;
                EXPECT_EQ(bytes % config.sram.bankWidthBytes, 0) << preset;
                EXPECT_EQ(bytes / config.sram.bankWidthBytes % 2, 1) << preset << " width " << bytes;
            }
        }
    }
}

TEST(CostModel, StridedRowsAtTheBankPeriodWaitOnOneBank) {
    // mobile: 32 banks of 32 bytes. 32 rows of 52 bytes (two chunks each) a period apart all
    // start in bank 0; an odd number of chunks apart, each starts in a bank of its own.
    const CostModel model(loadArchConfig("mobile", {}));
    EXPECT_EQ(model.sramReadCycles(0, 32, 52, 1024), 32.0);
    EXPECT_EQ(model.sramReadCycles(0, 32, 52, 33 * 32), 2.0);
    EXPECT_EQ(model.sramReadCycles(0, 1, 4096, 0), 4.0);  // one long row over every bank
    EXPECT_EQ(model.sramReadCycles(16, 1, 32, 0), 1.0);   // straddling two banks: one chunk each
    // Half a period apart, the rows take two banks' turns.
    EXPECT_EQ(model.sramReadCycles(0, 32, 32, 512), 16.0);
}

}  // namespace
}  // namespace npusim::compiler

namespace npusim::compiler {
namespace {

/// B (k = channels, n = rows x width) gathered from a resident [channels, rows, width] source,
/// one on-chip move per image row of the block, each `width - 1` elements (a 3x3 tap).
GemmProblem gatheredRows(int64_t channels, int64_t rows, int64_t width) {
    GemmProblem p;
    p.m = 64;
    p.k = channels;
    p.n = rows * width;
    p.b.value = 1;
    StridedCopy copy;
    copy.dims = {channels, rows, width - 1};
    copy.inputStrides = {rows * width, width, 1};
    copy.outputStrides = {p.n, width, 1};
    copy.outputOffset = 1;
    p.b.gather.push_back({2, copy});
    return p;
}

TEST(CostModel, AGatheredBlocksMovesPayTheLastSramAccessOnce) {
    // The engine runs a block's moves back to back: each adds its bursts' issue, and only the
    // last one's SRAM read and write is exposed.
    const ArchConfig config = loadArchConfig("server", {});
    const CostModel model(config, {}, {2});
    BlockTransfer row;
    row.planes = 256;
    row.dramPlaneStride = 14 * 14;
    row.rowElements = 13;
    const double issue = model.moveIssueCycles(row, 1);
    EXPECT_GT(model.moveCycles(row, 1), issue);  // a move alone: its issue and its SRAM access
    const auto block = [&](int64_t rows) {
        GemmProblem p = gatheredRows(256, 14, 14);
        p.operandType = DType::Int8;
        return model.gatherBlockCost(p, {0, 0, 0, 0, 64, rows * 14, 256, true, true}).moves;
    };
    EXPECT_DOUBLE_EQ(block(1), model.moveCycles(row, 1));
    EXPECT_DOUBLE_EQ(block(14), model.moveCycles(row, 1) + 13 * issue);
}

}  // namespace
}  // namespace npusim::compiler
