// Weight streaming: the ops are cut into phases whose weights fit the budget DRAM leaves, the
// weights of a phase share DRAM with tensors whose live ranges they do not meet, and every phase
// starts a segment of its own that uploads them.
#include <gtest/gtest.h>

#include "arch/arch_config.h"
#include "arch/error.h"
#include "compiler/cost/cost_model.h"
#include "compiler/memory/memory_planning.h"
#include "compiler/memory/weight_phases.h"
#include "compiler/target/codegen.h"
#include "compiler/tiling/tiling.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

TEST(WeightPhases, APhaseGrowsWhileItsWeightsFitTheBudget) {
    const std::vector<WeightUse> weights = {{1, 100, 0, 0}, {2, 100, 1, 1}, {3, 100, 2, 3}, {4, 50, 3, 3}};
    EXPECT_EQ(cutWeightPhases(weights, 4, 200), (std::vector<int>{0, 2}));
    EXPECT_EQ(cutWeightPhases(weights, 4, 350), (std::vector<int>{0}));
    EXPECT_EQ(phaseOf(std::vector<int>{0, 2}, 1), 0u);
    EXPECT_EQ(phaseOf(std::vector<int>{0, 2}, 3), 1u);
}

TEST(WeightPhases, AWeightReadAcrossACutCountsInBothPhases) {
    // e (150) is read at 0 and 3; f (100) arrives at 2: 250 is over 200, so a phase starts at 2
    // that still holds e (over the budget: its op needs both). g (40) arrives at 3, where a
    // third phase lets f go: 190.
    const std::vector<WeightUse> weights = {{1, 150, 0, 3}, {2, 100, 2, 2}, {3, 40, 3, 3}};
    EXPECT_EQ(cutWeightPhases(weights, 4, 200), (std::vector<int>{0, 2, 3}));
}

TEST(WeightPhases, AnOpOverTheBudgetStillGetsOnePhaseAndNoMore) {
    const std::vector<WeightUse> weights = {{1, 300, 0, 0}, {2, 300, 1, 1}};
    EXPECT_EQ(cutWeightPhases(weights, 4, 100), (std::vector<int>{0, 1}));
}

/// x[16, 512] through `layers` MatMuls with 1 MiB fp32 weights each.
Graph matMulChain(int layers) {
    testing::GraphBuilder b("chain");
    ValueId x = b.input("x", DType::Fp32, {16, 512});
    for (int i = 0; i < layers; ++i) {
        const std::string index = std::to_string(i);
        const ValueId w = b.constant(std::string("w").append(index), Tensor::zeros(DType::Fp32, {512, 512}));
        x = b.op(OpKind::MatMul, std::string("mm").append(index), {x, w});
    }
    return b.finish({x});
}

TEST(WeightPhases, WeightsDramCannotHoldStreamInPhasesThatStartSegments) {
    // 4 MiB of weights, 3 MiB of DRAM (2.625 MiB for the window beside command buffers).
    const std::string overrides[] = {"dram.size_mib=3"};
    const ArchConfig config = loadArchConfig("edge", overrides);
    const Graph graph = matMulChain(4);
    const TileProgram tiles = lowerToTiles(graph, config, CostModel(config));
    const MemoryPlan plan = planMemory(graph, tiles, config);

    ASSERT_GE(plan.weightPhases.size(), 2u);
    EXPECT_LE(plan.dramBytes, (uint64_t{3} << 20) - (uint64_t{3} << 17));
    EXPECT_EQ(plan.residentWeightBytes, 0u);
    size_t streamed = 0;
    for (const WeightPhase& phase : plan.weightPhases) {
        for (const StreamedWeight& weight : phase.uploads) {
            const TensorHome& home = plan.tensor(weight.value);
            EXPECT_EQ(home.firstOp, phase.firstOp);
            EXPECT_LE(weight.imageOffset + home.bytes, plan.weights.size());
            ++streamed;
        }
    }
    EXPECT_EQ(streamed, 4u);
    // Tensors that share DRAM bytes are never live at once.
    for (const TensorHome& a : plan.tensors) {
        for (const TensorHome& b : plan.tensors) {
            if (&a == &b || a.resident() || b.resident() || a.storage != a.value || b.storage != b.value) continue;
            const bool bytes = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
            const bool time = a.firstOp <= b.lastOp && b.firstOp <= a.lastOp;
            EXPECT_FALSE(bytes && time) << graph.value(a.value).name << " and " << graph.value(b.value).name;
        }
    }

    const std::vector<CodeSegment> segments = generateSegments(tiles, plan, config);
    ASSERT_EQ(segments.size(), plan.weightPhases.size());
    for (size_t i = 0; i < segments.size(); ++i) {
        EXPECT_EQ(segments[i].uploads.size(), plan.weightPhases[i].uploads.size()) << "segment " << i;
        EXPECT_EQ(segments[i].commands.back().opcode, isa::Opcode::End);
    }
}

TEST(WeightPhases, AnOpWhoseOperandsDramCannotHoldIsRefusedByName) {
    const std::string overrides[] = {"dram.size_mib=1"};
    const ArchConfig config = loadArchConfig("edge", overrides);
    const Graph graph = matMulChain(2);  // each MatMul alone needs its 1 MiB weight
    const TileProgram tiles = lowerToTiles(graph, config, CostModel(config));
    try {
        planMemory(graph, tiles, config);
        FAIL() << "expected the plan to be refused";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("op 'mm"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("dram.size_mib"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace npusim::compiler
