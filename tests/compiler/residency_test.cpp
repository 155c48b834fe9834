// Memory planning keeps intermediates on chip between ops where they fit and spills the rest:
// where each lands, which commands move it, and what a spill records for the report.
#include <gtest/gtest.h>

#include <algorithm>

#include "arch/arch_config.h"
#include "compiler/memory/memory_planning.h"
#include "graph_test_support.h"
#include "lowering_test_support.h"

namespace npusim::compiler {
namespace {

using testing::expectValidStream;
using testing::lower;
using testing::Lowered;

/// x[rows, cols] -> Relu -> MatMul(w[cols, cols]) -> y: the Relu's result is read by the GEMM.
Graph reluThenMatMul(int64_t rows, int64_t cols) {
    testing::GraphBuilder b("relu_matmul");
    const ValueId x = b.input("x", DType::Fp32, {rows, cols});
    const ValueId hidden = b.op(OpKind::Relu, "hidden", {x});
    const ValueId w = b.constant("w", Tensor::zeros(DType::Fp32, {cols, cols}));
    return b.finish({b.op(OpKind::MatMul, "y", {hidden, w})});
}

/// The DMA commands whose tensor side is `home`'s bytes.
std::vector<isa::Command> transfersOf(const Lowered& l, const TensorHome& home) {
    std::vector<isa::Command> found;
    for (const isa::Command& c : l.commands) {
        if (c.opcode != isa::Opcode::DmaLoad && c.opcode != isa::Opcode::DmaStore) continue;
        const bool move = c.get(isa::Field::OnchipMove) != 0;
        const uint64_t address = c.get(isa::Field::DramAddr);
        if (move == home.resident() && address >= home.offset && address < home.offset + home.bytes) {
            found.push_back(c);
        }
    }
    return found;
}

TEST(Residency, AnIntermediateThatFitsStaysOnChip) {
    const ArchConfig edge = loadArchConfig("edge", {});
    const Graph graph = reluThenMatMul(64, 64);
    const Lowered l = lower(graph, edge);
    const ValueId hidden = graph.nodes[0].outputs[0];
    const TensorHome& home = l.memory.tensor(hidden);
    ASSERT_TRUE(home.resident());
    EXPECT_FALSE(home.spilled());
    EXPECT_EQ(home.firstOp, 0);
    EXPECT_EQ(home.lastOp, 1);
    // Its buffer lies inside SRAM and clear of the working sets of both ops it lives across.
    const OnchipBuffer& buffer = l.memory.buffers.at(home.buffer);
    EXPECT_EQ(buffer.offset, home.offset);
    EXPECT_LE(buffer.offset + buffer.bytes, edge.sram.sizeBytes);
    for (const OnchipBuffer& other : l.memory.buffers) {
        if (other.id == buffer.id || other.space != AddressSpace::Sram) continue;
        EXPECT_TRUE(other.offset + other.bytes <= buffer.offset || other.offset >= buffer.offset + buffer.bytes)
            << other.name << " of op " << other.opId;
    }
    // The Relu stores it and the GEMM loads it by on-chip moves; nothing is a spill.
    const std::vector<isa::Command> moves = transfersOf(l, home);
    EXPECT_TRUE(std::any_of(moves.begin(), moves.end(), [](const isa::Command& c) { return c.opcode == isa::Opcode::DmaStore; }));
    EXPECT_TRUE(std::any_of(moves.begin(), moves.end(), [](const isa::Command& c) { return c.opcode == isa::Opcode::DmaLoad; }));
    EXPECT_TRUE(std::none_of(l.commands.begin(), l.commands.end(),
                             [](const isa::Command& c) { return c.kind == isa::CommandKind::Spill; }));
    // The DRAM window holds the weight, the input and the output only.
    EXPECT_LE(l.memory.dramBytes, uint64_t{3 * 64 * 64 * 4});
    expectValidStream(l, edge);
}

TEST(Residency, AnIntermediateLargerThanSramSpills) {
    const ArchConfig tiny = loadArchConfig("tiny", {});
    const Graph graph = reluThenMatMul(128, 128);  // a 64 KiB intermediate, twice tiny's SRAM
    const Lowered l = lower(graph, tiny);
    const TensorHome& home = l.memory.tensor(graph.nodes[0].outputs[0]);
    ASSERT_TRUE(home.spilled());
    EXPECT_GT(home.sramToKeep, tiny.sram.sizeBytes);
    EXPECT_GE(home.sramToKeep, home.bytes);
    // Its stores and reloads are spill commands, and they are the only ones.
    const std::vector<isa::Command> transfers = transfersOf(l, home);
    ASSERT_FALSE(transfers.empty());
    for (const isa::Command& c : transfers) EXPECT_EQ(c.kind, isa::CommandKind::Spill) << isa::disassemble(c);
    const auto spills = std::count_if(l.commands.begin(), l.commands.end(),
                                      [](const isa::Command& c) { return c.kind == isa::CommandKind::Spill; });
    EXPECT_EQ(static_cast<size_t>(spills), transfers.size());
    expectValidStream(l, tiny);
}

TEST(Residency, TensorsWhoseLiveRangesDoNotMeetShareSram) {
    // x -> Relu a -> Relu b -> Relu c -> Relu y: a and c are never live together; b meets both.
    testing::GraphBuilder builder("chain");
    ValueId previous = builder.input("x", DType::Fp32, {32, 32});
    for (const char* name : {"a", "b", "c", "y"}) previous = builder.op(OpKind::Relu, name, {previous});
    const Graph graph = builder.finish({previous});
    const ArchConfig edge = loadArchConfig("edge", {});
    const Lowered l = lower(graph, edge);
    const TensorHome& a = l.memory.tensor(graph.nodes[0].outputs[0]);
    const TensorHome& b = l.memory.tensor(graph.nodes[1].outputs[0]);
    const TensorHome& c = l.memory.tensor(graph.nodes[2].outputs[0]);
    ASSERT_TRUE(a.resident() && b.resident() && c.resident());
    EXPECT_EQ(a.offset, c.offset);
    EXPECT_TRUE(b.offset + b.bytes <= a.offset || a.offset + a.bytes <= b.offset);
    expectValidStream(l, edge);
}

TEST(Residency, StorageAnOutputViewsStaysInDram) {
    // x -> Relu a -> Reshape -> y: the output is read back from a's bytes after the job.
    testing::GraphBuilder b("view_output");
    const ValueId a = b.op(OpKind::Relu, "a", {b.input("x", DType::Fp32, {2, 3})});
    const ValueId flat = b.op(OpKind::Reshape, "flat", {a, b.constant("shape", testing::int64({1}, {6}))});
    const Graph graph = b.finish({flat});
    const Lowered l = lower(graph, loadArchConfig("edge", {}));
    EXPECT_FALSE(l.memory.tensor(a).resident());
    EXPECT_FALSE(l.memory.tensor(a).spilled());
}

}  // namespace
}  // namespace npusim::compiler
