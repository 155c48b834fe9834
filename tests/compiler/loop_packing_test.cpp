// Loop packing: packed streams expand back to exactly what codegen wrote, every loop is one
// the command processor runs, and tile nests shrink to a few descriptors per tile shape.
#include <gtest/gtest.h>

#include <functional>

#include "arch/arch_config.h"
#include "arch/isa_loops.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/target/loop_packing.h"
#include "graph_test_support.h"
#include "lowering_test_support.h"

namespace npusim::compiler {
namespace {

using Ints = std::vector<int64_t>;

/// Every top-level loop of `packed` passes checkLoop.
void expectRunnableLoops(const std::vector<isa::Command>& packed) {
    for (size_t i = 0; i < packed.size();) {
        ASSERT_NE(packed[i].opcode, isa::Opcode::Step) << "descriptor " << i;
        if (packed[i].opcode != isa::Opcode::Loop) {
            ++i;
            continue;
        }
        const size_t extent = isa::loopExtent(packed[i]);
        ASSERT_LE(i + extent, packed.size());
        const auto why = isa::checkLoop(std::span(packed).subspan(i, extent));
        EXPECT_FALSE(why.has_value()) << "the loop at " << i << ": " << *why;
        i += extent;
    }
}

Graph convNet() {
    testing::GraphBuilder b("convnet");
    const ValueId x = b.input("x", DType::Fp32, {1, 8, 24, 24});
    const std::map<std::string, Attribute> same = {{"pads", Ints{1, 1, 1, 1}}};
    const ValueId c1 = b.op(OpKind::Conv, "conv1", {x, b.constant("w1", testing::randomFp32({16, 8, 3, 3}, 1))}, same);
    const ValueId r1 = b.op(OpKind::Relu, "relu1", {c1});
    const ValueId p1 = b.op(OpKind::MaxPool, "pool1", {r1}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}});
    const ValueId c2 = b.op(OpKind::Conv, "conv2", {p1, b.constant("w2", testing::randomFp32({16, 16, 3, 3}, 2))}, same);
    Graph graph = b.finish({b.op(OpKind::Relu, "relu2", {b.op(OpKind::Add, "residual", {c2, p1})})});
    for (const GraphPass& pass : graphPasses()) pass.run(graph);
    return graph;
}

Graph matMul(int64_t m, int64_t k, int64_t n) {
    testing::GraphBuilder b("matmul");
    const ValueId x = b.input("x", DType::Fp32, {m, k});
    Graph graph = b.finish({b.op(OpKind::MatMul, "mm", {x, b.constant("w", testing::randomFp32({k, n}, 3))})});
    for (const GraphPass& pass : graphPasses()) pass.run(graph);
    return graph;
}

TEST(LoopPacking, PackedStreamsExpandToTheCodegenStreamOnEveryPreset) {
    for (const std::string& preset : archPresetNames()) {
        const ArchConfig config = loadArchConfig(preset, {});
        for (const Graph& graph : {convNet(), matMul(256, 512, 384)}) {
            const std::vector<isa::Command> commands = testing::lower(graph, config).commands;
            const std::vector<isa::Command> packed = packLoops(commands);
            expectRunnableLoops(packed);
            EXPECT_EQ(isa::expandLoops(packed), commands) << preset << " " << graph.name;
            EXPECT_LE(packed.size(), commands.size());
        }
    }
}

TEST(LoopPacking, ATileNestShrinksToAFewDescriptors) {
    const ArchConfig config = loadArchConfig("tiny", {});
    const std::vector<isa::Command> commands = testing::lower(matMul(256, 512, 384), config).commands;
    const std::vector<isa::Command> packed = packLoops(commands);
    // tiny's 8x8 array: thousands of tiles of a handful of shapes.
    EXPECT_GT(commands.size(), 10000u);
    EXPECT_LT(packed.size() * 10, commands.size()) << packed.size() << " descriptors for " << commands.size() << " commands";
    int depth = 0;
    std::vector<size_t> ends;
    for (size_t i = 0; i < packed.size(); ++i) {
        while (!ends.empty() && ends.back() <= i) ends.pop_back();
        if (packed[i].opcode == isa::Opcode::Loop) ends.push_back(i + isa::loopExtent(packed[i]));
        depth = std::max(depth, static_cast<int>(ends.size()));
    }
    EXPECT_GE(depth, 2) << "loops nest";
}

TEST(LoopPacking, AStreamWithoutRepetitionsStaysAsItIs) {
    std::vector<isa::Command> commands;
    for (const char* line : {"dma.load dram=0x0 addr=0x0 rows=1 row_bytes=4 dram_stride=4 stride=4",
                             "sem.signal queue=load sem=0", "sem.wait queue=tensor sem=0",
                             "gemm a=0x0 b=0x100 c=0x0 m=2 n=2 k=2 dtype=int8 a_stride=2 b_stride=2 c_stride=2", "end"}) {
        commands.push_back(isa::assemble(line));
    }
    EXPECT_EQ(packLoops(commands), commands);
}

std::vector<isa::Command> copies(int count, const std::function<int(int)>& rows) {
    std::vector<isa::Command> commands;
    for (int i = 0; i < count; ++i) {
        commands.push_back(isa::assemble("vec func=copy dtype=fp32 out=fp32 dst=" + std::to_string(64 * i) +
                                         " src0=0x100 rows=" + std::to_string(rows(i)) + " cols=4"));
    }
    commands.push_back(isa::assemble("end"));
    return commands;
}

TEST(LoopPacking, OnlyTileIdsAndAddressesMayStep) {
    // rows grows with i: only the destination address steps by a constant, so nothing folds.
    const std::vector<isa::Command> growing = copies(32, [](int i) { return 1 + i; });
    EXPECT_EQ(packLoops(growing), growing);
    // rows repeats with period 3: that folds, and expands back.
    const std::vector<isa::Command> periodic = copies(32, [](int i) { return 1 + i % 3; });
    const std::vector<isa::Command> packed = packLoops(periodic);
    EXPECT_LT(packed.size(), periodic.size());
    EXPECT_EQ(isa::expandLoops(packed), periodic);
}

}  // namespace
}  // namespace npusim::compiler
