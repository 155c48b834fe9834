// The RTL vector core against the timing model and the reference ALU: random int32 blocks of
// every integer op and operand mode on the Verilated 8-, 16- and 32-lane ALUs give bit-exact
// results and exactly the model's cycles.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "arch/arch_config.h"
#include "arch/error.h"
#include "hw_model/vector/vector_alu.h"
#include "rtl/vector_rtl_core.h"

namespace npusim::rtl {
namespace {

using isa::VectorOp;

constexpr VectorOp kIntegerOps[] = {VectorOp::Copy, VectorOp::Add, VectorOp::Sub, VectorOp::Mul, VectorOp::Max,
                                    VectorOp::Min, VectorOp::Relu, VectorOp::Clip, VectorOp::Less, VectorOp::Equal};

bool binary(VectorOp op) { return op != VectorOp::Copy && op != VectorOp::Relu && op != VectorOp::Clip; }

std::vector<std::byte> randomInt32(std::mt19937& rng, uint64_t count, bool small) {
    std::vector<std::byte> bytes(count * 4);
    for (uint64_t i = 0; i < count; ++i) {
        // Small values make equal operands (for Equal and ties) likely; full-range ones overflow.
        const auto v = small ? static_cast<int32_t>(rng() % 7) - 3 : static_cast<int32_t>(rng());
        std::memcpy(bytes.data() + i * 4, &v, 4);
    }
    return bytes;
}

void expectEquivalent(const char* preset, uint32_t seed) {
    const ArchConfig config = loadArchConfig(preset, {});
    RtlLog log;
    const std::unique_ptr<hw::VectorCore> core = makeVectorRtlCore(config, log);
    std::mt19937 rng(seed);
    const auto& v = config.vector;
    uint64_t blocks = 0;
    for (int i = 0; i < 8; ++i) {
        for (VectorOp op : kIntegerOps) {
            hw::VectorBlock block;
            block.op = op;
            block.dtype = block.outDType = DType::Int32;
            block.rows = 1 + rng() % 9;
            block.cols = 1 + rng() % 70;
            const bool small = rng() % 2 == 0;
            const auto modes = {isa::Operand1Mode::Full, isa::Operand1Mode::Row, isa::Operand1Mode::Column,
                                isa::Operand1Mode::Scalar, isa::Operand1Mode::Immediate};
            block.mode = binary(op) ? *(modes.begin() + rng() % modes.size()) : isa::Operand1Mode::None;
            block.immediate = static_cast<uint32_t>(static_cast<int32_t>(rng() % 11) - 5);
            block.immediate2 = op == VectorOp::Clip ? block.immediate + rng() % 6 : static_cast<uint32_t>(rng() % 5);
            std::vector<std::byte> src0 = randomInt32(rng, uint64_t{block.rows} * block.cols, small);
            std::vector<std::byte> src1 = randomInt32(rng, hw::operand1Elements(block.mode, block.rows, block.cols), small);
            std::vector<std::byte> rtl(uint64_t{block.rows} * block.cols * 4), reference = rtl;
            block.src0 = src0.data();
            block.src1 = src1.data();
            SCOPED_TRACE(std::string(preset) + " " + std::string(isa::vectorOpName(op)) + " " +
                         std::to_string(block.rows) + "x" + std::to_string(block.cols));

            const uint64_t groups = (uint64_t{block.rows} * block.cols + v.lanes - 1) / v.lanes;
            const uint64_t model = v.pipelineDepth + groups * v.opCycles[static_cast<size_t>(op)];
            block.dst = rtl.data();
            core->compute(block);
            EXPECT_EQ(core->computeCycles(block, model, 0, 0), model);
            block.dst = reference.data();
            hw::computeVectorBlock(block);
            ASSERT_EQ(rtl, reference) << "results differ from the reference ALU";
            ++blocks;
        }
    }
    EXPECT_TRUE(log.differences.empty());
    EXPECT_EQ(log.blocks["vector"].onRtl, blocks);
}

TEST(VectorRtlCore, Lanes8MatchTheModel) { expectEquivalent("tiny", 1); }
TEST(VectorRtlCore, Lanes16MatchTheModel) { expectEquivalent("edge", 2); }
TEST(VectorRtlCore, Lanes32MatchTheModel) { expectEquivalent("mobile", 3); }

TEST(VectorRtlCore, FloatOpsStayOnTheModelCore) {
    RtlLog log;
    const std::unique_ptr<hw::VectorCore> core = makeVectorRtlCore(loadArchConfig("edge", {}), log);
    hw::VectorBlock block;
    block.op = VectorOp::Exp;
    block.rows = block.cols = 4;
    EXPECT_EQ(core->computeCycles(block, 123, 0, 0), 123u);
    block.op = VectorOp::ReduceSum;
    block.dtype = block.outDType = DType::Int32;
    EXPECT_EQ(core->computeCycles(block, 77, 0, 0), 77u);
    EXPECT_EQ(log.blocks["vector"].onModel, 2u);
}

TEST(VectorRtlCore, ADifferenceFromTheModelIsLogged) {
    // A model whose integer add takes two cycles per group; the lanes take one.
    const ArchConfig config = loadArchConfig("edge", std::vector<std::string>{"vector.op_cycles.add=2"});
    RtlLog log;
    const std::unique_ptr<hw::VectorCore> core = makeVectorRtlCore(config, log);
    hw::VectorBlock block;
    block.op = VectorOp::Add;
    block.dtype = block.outDType = DType::Int32;
    block.mode = isa::Operand1Mode::Immediate;
    block.rows = 2;
    block.cols = 32;  // 4 groups of 16
    EXPECT_EQ(core->computeCycles(block, 4 + 4 * 2, 5, 9), 4u + 4u);
    ASSERT_EQ(log.differences.size(), 1u);
    EXPECT_EQ(log.differences[0].block, "vector");
    EXPECT_EQ(log.differences[0].opId, 5u);
}

TEST(VectorRtlCore, ConfigsWithoutBuiltLanesAreRefused) {
    RtlLog log;
    EXPECT_THROW(makeVectorRtlCore(loadArchConfig("server", {}), log), InputError);
    EXPECT_THROW(makeVectorRtlCore(loadArchConfig("edge", std::vector<std::string>{"vector.pipeline_depth=5"}), log),
                 InputError);
}

}  // namespace
}  // namespace npusim::rtl
