// The RTL tensor core against the timing model and the reference arithmetic: random int8 and
// uint8 GEMM tiles (sizes up to the array, zero points, accumulation) on the Verilated 8x8,
// 16x16 and 32x32 arrays give bit-exact results and exactly the model's phase lengths.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "arch/arch_config.h"
#include "arch/error.h"
#include "arch/tile_timing.h"
#include "hw_model/tensor/gemm_kernel.h"
#include "rtl/tensor_rtl_core.h"

namespace npusim::rtl {
namespace {

struct RandomTile {
    hw::GemmTile tile;
    std::vector<std::byte> a, b, c;
};

/// Points the tile at its own operand and result buffers (after the tile is copied).
void bind(RandomTile& t) {
    t.tile.a = t.a.data();
    t.tile.b = t.b.data();
    t.tile.c = t.c.data();
}

RandomTile randomTile(std::mt19937& rng, uint32_t size, DType dtype) {
    RandomTile t;
    hw::GemmTile& tile = t.tile;
    tile.dtype = dtype;
    tile.m = 1 + rng() % 40;
    tile.n = 1 + rng() % size;
    tile.k = 1 + rng() % size;
    tile.accumulate = rng() % 2 == 0;
    const auto zeroPoint = [&] {
        return dtype == DType::Int8 ? static_cast<int32_t>(rng() % 256) - 128 : static_cast<int32_t>(rng() % 256);
    };
    tile.aZeroPoint = rng() % 3 == 0 ? 0 : zeroPoint();
    tile.bZeroPoint = rng() % 3 == 0 ? 0 : zeroPoint();
    t.a.resize(size_t{tile.m} * tile.k);
    t.b.resize(size_t{tile.k} * tile.n);
    t.c.resize(size_t{tile.m} * tile.n * 4);
    for (std::vector<std::byte>* bytes : {&t.a, &t.b, &t.c}) {
        for (std::byte& v : *bytes) v = static_cast<std::byte>(rng());
    }
    return t;
}

void expectEquivalent(const char* preset, uint64_t seed) {
    const ArchConfig config = loadArchConfig(preset, {});
    const uint32_t size = config.tensor.rows;
    RtlLog log;
    const std::unique_ptr<hw::TensorCore> core = makeTensorRtlCore(config, log);
    std::mt19937 rng(static_cast<uint32_t>(seed));
    for (int i = 0; i < 30; ++i) {
        for (DType dtype : {DType::Int8, DType::UInt8}) {
            RandomTile rtl = randomTile(rng, size, dtype);
            RandomTile reference = rtl;
            bind(rtl);
            bind(reference);
            const hw::GemmTile& tile = rtl.tile;
            SCOPED_TRACE(std::string(preset) + " tile " + std::to_string(i) + ": m=" + std::to_string(tile.m) +
                         " n=" + std::to_string(tile.n) + " k=" + std::to_string(tile.k));
            const TilePhases model =
                tilePhases(config.tensor, dtype, tile.m, tile.k, tile.accumulate);
            const TilePhases phases =
                core->phases({dtype, tile.m, tile.n, tile.k, tile.accumulate}, model, 0, static_cast<uint32_t>(i));
            EXPECT_EQ(phases.preload, model.preload);
            EXPECT_EQ(phases.stream, model.stream);
            EXPECT_EQ(phases.latency, model.latency);
            EXPECT_EQ(phases.firstResult, model.firstResult);
            core->compute(tile);
            hw::referenceGemmTile(reference.tile);
            ASSERT_EQ(rtl.c, reference.c) << "results differ from the reference";
        }
    }
    EXPECT_TRUE(log.differences.empty());
    EXPECT_EQ(log.blocks["tensor"].onRtl, 60u);
    EXPECT_GT(log.blocks["tensor"].clockCycles, 0u);
}

TEST(TensorRtlCore, Array8x8MatchesTheModel) { expectEquivalent("tiny", 1); }
TEST(TensorRtlCore, Array16x16MatchesTheModel) { expectEquivalent("edge", 2); }
TEST(TensorRtlCore, Array32x32MatchesTheModel) { expectEquivalent("mobile", 3); }

TEST(TensorRtlCore, OtherDTypesStayOnTheModelCoreAndAreCounted) {
    const ArchConfig config = loadArchConfig("edge", {});
    RtlLog log;
    const std::unique_ptr<hw::TensorCore> core = makeTensorRtlCore(config, log);
    const TilePhases model{4, 32, 30, 16};
    EXPECT_EQ(core->phases({DType::Fp32, 8, 8, 4, false}, model, 0, 0), model);
    EXPECT_EQ(log.blocks["tensor"].onModel, 1u);
    EXPECT_EQ(log.blocks["tensor"].onRtl, 0u);
}

TEST(TensorRtlCore, ZeroPointsBeyondTheOperandWidthAreComputedByTheModel) {
    const ArchConfig config = loadArchConfig("edge", {});
    RtlLog log;
    const std::unique_ptr<hw::TensorCore> core = makeTensorRtlCore(config, log);
    std::mt19937 rng(9);
    RandomTile rtl = randomTile(rng, 16, DType::Int8);
    rtl.tile.aZeroPoint = 300;  // the ISA allows it; 127 - 300 does not fit 10 bits
    RandomTile reference = rtl;
    bind(rtl);
    bind(reference);
    const hw::GemmTile& tile = rtl.tile;
    core->phases({tile.dtype, tile.m, tile.n, tile.k, tile.accumulate}, {}, 0, 0);
    core->compute(tile);
    hw::referenceGemmTile(reference.tile);
    EXPECT_EQ(rtl.c, reference.c);
    EXPECT_EQ(log.blocks["tensor"].onRtl, 0u);
    EXPECT_EQ(log.blocks["tensor"].onModel, 1u);
}

TEST(TensorRtlCore, APhaseDifferenceIsLoggedWithItsCommand) {
    // A model that streams int8 rows every other cycle: the array takes one per cycle.
    const ArchConfig config = loadArchConfig("edge", std::vector<std::string>{"tensor.dtypes.int8.cycles_per_row=2"});
    RtlLog log;
    const std::unique_ptr<hw::TensorCore> core = makeTensorRtlCore(config, log);
    const TilePhases model = tilePhases(config.tensor, DType::Int8, 10, 16, false);
    const TilePhases rtl = core->phases({DType::Int8, 10, 16, 16, false}, model, 7, 3);
    EXPECT_EQ(rtl.stream, 10u);
    EXPECT_EQ(model.stream, 20u);
    ASSERT_EQ(log.differences.size(), 1u);
    EXPECT_EQ(log.differences[0].block, "tensor");
    EXPECT_EQ(log.differences[0].opId, 7u);
    EXPECT_EQ(log.differences[0].tileId, 3u);
    EXPECT_EQ(log.differences[0].modelCycles, 16u + 20u + 30u);
    EXPECT_EQ(log.differences[0].rtlCycles, 16u + 10u + 30u);
}

TEST(TensorRtlCore, ConfigsWithoutABuiltArrayAreRefusedNamingTheSizes) {
    RtlLog log;
    try {
        makeTensorRtlCore(loadArchConfig("server", {}), log);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("128x128"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("8x8, 16x16, 32x32"), std::string::npos) << e.what();
    }
    EXPECT_THROW(makeTensorRtlCore(loadArchConfig("edge", std::vector<std::string>{"tensor.dataflow=output_stationary"}), log), InputError);
}

TEST(TensorRtlCore, WritesAWaveformOnRequest) {
    const std::filesystem::path vcd = std::filesystem::temp_directory_path() / "npusim_tensor_rtl_test.vcd";
    {
        RtlLog log;
        const std::unique_ptr<hw::TensorCore> core = makeTensorRtlCore(loadArchConfig("tiny", {}), log, vcd.string());
        core->phases({DType::Int8, 4, 8, 8, false}, {}, 0, 0);
    }
    std::ifstream in(vcd);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("$var"), std::string::npos);
    EXPECT_NE(text.find("c_valid"), std::string::npos);
    std::filesystem::remove(vcd);
}

}  // namespace
}  // namespace npusim::rtl
