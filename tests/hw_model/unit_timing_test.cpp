// Exact cycle counts of single commands of the tensor and vector units, semaphores and units
// sharing memories on the `edge` preset (unit_timing_support.h gives its parameters); the DMA
// engines' and DRAM's own are in dma_timing_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "unit_timing_support.h"

namespace npusim::test {
namespace {

/// The accumulator memory from address 0 holds the m x n int32 product of the int8 matrices
/// a (m x k) and b (k x n).
void expectProduct(UnitHarness& harness, const std::vector<int8_t>& a, const std::vector<int8_t>& b, int m, int n,
                   int k) {
    const auto c = valuesOf<int32_t>(harness.read(Memory::Accumulator, 0, static_cast<uint64_t>(m * n) * 4));
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            int32_t expected = 0;
            for (int p = 0; p < k; ++p) expected += a[static_cast<size_t>(i * k + p)] * b[static_cast<size_t>(p * n + j)];
            ASSERT_EQ(c[static_cast<size_t>(i * n + j)], expected) << i << "," << j;
        }
    }
}

TEST_F(UnitTiming, GemmInt8Tile) {
    std::vector<int8_t> a(64 * 16), b(16 * 16);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int8_t>(i * 7 % 251 - 125);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>(i * 13 % 255 - 127);
    uint64_t cycles = 0;
    harness.run([&] {
        harness.write(Memory::Sram, 0, bytesOf(a));
        harness.write(Memory::Sram, 0x1000, bytesOf(b));
        cycles = harness.execute({gemm(DType::Int8, 64, 16, 16, 0, 0x1000, false)});
    });
    // weight load 16 (the 256 B of B take 1 cycle over 16 banks) + stream 64 rows x 1 cycle
    // + fill 15 + drain 15 = 110; writing the 4 KiB result over 8 accumulator banks (32
    // cycles from cycle 32) finishes before that.
    EXPECT_EQ(cycles, 110u);
    expectProduct(harness, a, b, 64, 16, 16);
}

TEST_F(UnitTiming, TransposedGemmTileHoldsAAndStreamsB) {
    // A 16 x 16 by 16 x 64 product: n = 64 is beyond the array's 16 columns, so only its
    // transpose (C^T = B^T A^T) fits (Validator.FieldsTheUnitsCannotExecute): the array holds
    // A^T and streams B's 64 columns.
    std::vector<int8_t> a(16 * 16), b(16 * 64);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int8_t>(i * 7 % 251 - 125);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>(i * 13 % 255 - 127);
    Command tile = gemm(DType::Int8, 16, 64, 16, 0, 0x1000, false);
    tile.set(Field::Transpose, 1);
    uint64_t cycles = 0;
    harness.run([&] {
        harness.write(Memory::Sram, 0, bytesOf(a));
        harness.write(Memory::Sram, 0x1000, bytesOf(b));
        cycles = harness.execute({tile});
    });
    // GemmInt8Tile with m and n exchanged: A^T's 16 rows load in 16 cycles, B's 64 columns
    // stream at 1 cycle each, fill 15 and drain 15: 110.
    EXPECT_EQ(cycles, 110u);
    expectProduct(harness, a, b, 16, 64, 16);
}

TEST_F(UnitTiming, GemmFp32TileAccumulates) {
    std::vector<float> a(64 * 16, 0.5f), b(16 * 16, 2.0f), c(64 * 16, 1.0f);
    uint64_t cycles = 0;
    harness.run([&] {
        harness.write(Memory::Sram, 0, bytesOf(a));
        harness.write(Memory::Sram, 0x4000, bytesOf(b));
        harness.write(Memory::Accumulator, 0, bytesOf(c));
        cycles = harness.execute({gemm(DType::Fp32, 64, 16, 16, 0, 0x4000, true)});
    });
    // weight load 16 + stream 64 rows x 4 cycles + fill 15 + drain 15 = 302; the partial sums
    // (read over [16, 48)) and the results (written over [48, 80)) fit inside.
    EXPECT_EQ(cycles, 302u);
    for (float v : valuesOf<float>(harness.read(Memory::Accumulator, 0, 64 * 16 * 4))) {
        ASSERT_EQ(v, 1.0f + 16 * 0.5f * 2.0f);
    }
}

TEST_F(UnitTiming, VectorReluBlock) {
    std::vector<float> x(64 * 16);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
    Command relu;
    relu.opcode = isa::Opcode::Vector;
    relu.set(Field::VectorOp, static_cast<uint64_t>(isa::VectorOp::Relu));
    relu.set(Field::DType, static_cast<uint64_t>(DType::Fp32)).set(Field::OutDType, static_cast<uint64_t>(DType::Fp32));
    relu.set(Field::Rows, 64).set(Field::Cols, 16).set(Field::DstStride, 16).set(Field::Src0Stride, 16);
    uint64_t cycles = 0;
    harness.run([&] {
        harness.write(Memory::Sram, 0, bytesOf(x));
        cycles = harness.execute({relu});
    });
    // 1024 elements / 16 lanes = 64 groups of 1 cycle, after 4 pipeline stages: 68. Reading
    // (16 cycles per bank) and writing (16 more) the 4 KiB block takes 32 cycles.
    EXPECT_EQ(cycles, 68u);
    const auto y = valuesOf<float>(harness.read(Memory::Sram, 0, x.size() * 4));
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], std::max(x[i], 0.0f));
}

TEST_F(UnitTiming, VectorAddBroadcastsARow) {
    std::vector<float> acc(8 * 4, 1.0f), bias = {0.5f, -1.0f, 2.0f, 4.0f};
    Command add;
    add.opcode = isa::Opcode::Vector;
    add.set(Field::VectorOp, static_cast<uint64_t>(isa::VectorOp::Add));
    add.set(Field::DType, static_cast<uint64_t>(DType::Fp32)).set(Field::OutDType, static_cast<uint64_t>(DType::Fp32));
    add.set(Field::Operand1Mode, static_cast<uint64_t>(isa::Operand1Mode::Row));
    const auto accumulator = static_cast<uint64_t>(isa::MemorySpace::Accumulator);
    add.set(Field::DstSpace, accumulator).set(Field::Src0Space, accumulator).set(Field::Src1Addr, 0x200);
    add.set(Field::Rows, 8).set(Field::Cols, 4).set(Field::DstStride, 4).set(Field::Src0Stride, 4);
    harness.run([&] {
        harness.write(Memory::Accumulator, 0, bytesOf(acc));
        harness.write(Memory::Sram, 0x200, bytesOf(bias));
        harness.execute({add});
    });
    const auto y = valuesOf<float>(harness.read(Memory::Accumulator, 0, acc.size() * 4));
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], 1.0f + bias[i % 4]) << i;
}

TEST_F(UnitTiming, SemaphoreOrdersQueuesAndRecordsTheWait) {
    uint64_t cycles = 0;
    harness.run([&] {
        cycles = harness.execute({dma(isa::Opcode::DmaLoad, 0, 0, 1, 256),
                                  semaphore(isa::Opcode::SemSignal, isa::Queue::Load, 3),
                                  semaphore(isa::Opcode::SemWait, isa::Queue::Tensor, 3),
                                  gemm(DType::Int8, 64, 16, 16, 0, 0x1000, false)});
    });
    // The GEMM (110 cycles, as above) starts only when the load (97 cycles) has signalled.
    EXPECT_EQ(cycles, 97u + 110u);
    uint64_t waited = 0;
    for (const trace::Event& e : harness.trace().events()) {
        if (e.type == trace::EventType::Stall && e.reason == trace::StallReason::SemaphoreWait) {
            waited += e.end - e.start;
        }
    }
    EXPECT_EQ(waited, 97u);
}

TEST_F(UnitTiming, ADmaEnginePipelinesItsCommandsAndASignalWaitsForThem) {
    uint64_t cycles = 0;
    harness.run([&] {
        cycles = harness.execute({dma(isa::Opcode::DmaLoad, 0, 0, 1, 256), dma(isa::Opcode::DmaLoad, 256, 0x400, 1, 256),
                                  semaphore(isa::Opcode::SemSignal, isa::Queue::Load, 3),
                                  semaphore(isa::Opcode::SemWait, isa::Queue::Tensor, 3),
                                  gemm(DType::Int8, 64, 16, 16, 0, 0x1000, false)});
    });
    // The first load's bursts issue at 0..3 and the second's at 4..7, behind them in the same
    // open DRAM row, not after the first load's 97 cycles: the bus moves all eight back to
    // back over [80, 112) and the last is in SRAM at 113. The signal waits for that; the GEMM
    // (110 cycles) follows.
    EXPECT_EQ(cycles, 113u + 110u);
    // The load engine is busy from 0 to 113 without a gap or an overlap.
    uint64_t busy = 0;
    for (const trace::Event& e : harness.trace().events()) {
        if (e.type == trace::EventType::Command && e.opcode == isa::Opcode::DmaLoad) busy += e.end - e.start;
    }
    EXPECT_EQ(busy, 113u);
}

}  // namespace
}  // namespace npusim::test

namespace npusim::test {
namespace {

uint64_t stallCycles(const trace::Recorder& trace, trace::StallReason reason) {
    uint64_t total = 0;
    for (const trace::Event& e : trace.events()) {
        if (e.type == trace::EventType::Stall && e.reason == reason) total += e.end - e.start;
    }
    return total;
}

TEST_F(UnitTiming, TwoDmaEnginesShareTheDramBus) {
    uint64_t cycles = 0;
    harness.run([&] {
        cycles = harness.execute({dma(isa::Opcode::DmaLoad, 0, 0, 1, 256),
                                  dma(isa::Opcode::DmaStore, 0x1000, 0x1000, 1, 256)});
    });
    // Alone, each would hold the bus for 16 cycles after 80 cycles of latency (done at 97).
    // The load is issued first and takes the bus over [80, 96); the store's writes, ready from
    // cycle 81, wait for it and take [96, 112). The wait is reported as contention.
    EXPECT_EQ(cycles, 112u);
    EXPECT_GT(stallCycles(harness.trace(), trace::StallReason::DramContention), 0u);
}

TEST_F(UnitTiming, TwoUnitsOnOneSramBankSerialise) {
    Command relu;
    relu.opcode = isa::Opcode::Vector;
    relu.set(Field::VectorOp, static_cast<uint64_t>(isa::VectorOp::Relu));
    relu.set(Field::DType, static_cast<uint64_t>(DType::Fp32)).set(Field::OutDType, static_cast<uint64_t>(DType::Fp32));
    // 64 rows of 4 B, 256 B apart: every element sits in bank 0 (256 = 16 banks x 16 B).
    relu.set(Field::Rows, 64).set(Field::Cols, 1).set(Field::DstStride, 64).set(Field::Src0Stride, 64);
    Command a = gemm(DType::Int8, 64, 16, 16, 0x10000, 0x1000, false);
    a.set(Field::AStride, 256);  // A rows 256 B apart: bank 0 as well
    uint64_t cycles = 0;
    harness.run([&] { cycles = harness.execute({relu, a}); });
    // The vector unit is served first: bank 0 reads over [0, 64) and writes over [64, 128).
    // The GEMM's weight load needs one chunk of bank 0 and gets it at 128 (weights in at 129);
    // its A rows then hold bank 0 over [129, 193), 64 cycles, as long as the stream itself:
    // 129 + 64 + fill 15 + drain 15 = 223, instead of 110 alone.
    EXPECT_GT(stallCycles(harness.trace(), trace::StallReason::SramBankConflict), 0u);
    EXPECT_EQ(cycles, 223u);
}

}  // namespace
}  // namespace npusim::test

namespace npusim::test {
namespace {

TEST_F(UnitTiming, DeadlockIsDetectedWithTheWaitingCommands) {
    uint64_t cycles = 0;
    harness.run([&] {
        cycles = harness.execute({dma(isa::Opcode::DmaLoad, 0, 0, 1, 256),
                                  semaphore(isa::Opcode::SemWait, isa::Queue::Tensor, 5),
                                  gemm(DType::Int8, 64, 16, 16, 0, 0x1000, false),
                                  semaphore(isa::Opcode::SemWait, isa::Queue::Store, 6)});
    });
    // Nobody signals 5 or 6: once the load is done (97 cycles) no queue can move.
    ASSERT_TRUE(harness.fault());
    EXPECT_EQ(harness.fault()->code, regs::ErrorCode::Deadlock);
    EXPECT_EQ(harness.fault()->commandIndex, 1u);  // the earliest of the waiting commands
    EXPECT_NE(harness.fault()->detail.find("sem.wait"), std::string::npos) << harness.fault()->detail;
    EXPECT_EQ(cycles, 97u);
}

TEST_F(UnitTiming, ASemaphoreSignalledLaterIsNotADeadlock) {
    harness.run([&] {
        harness.execute({semaphore(isa::Opcode::SemWait, isa::Queue::Tensor, 5),
                         dma(isa::Opcode::DmaLoad, 0, 0, 1, 256),
                         semaphore(isa::Opcode::SemSignal, isa::Queue::Load, 5)});
    });
    EXPECT_FALSE(harness.fault());
}

TEST_F(UnitTiming, AnAccessBeyondSramFaultsTheJobAndDropsTheRest) {
    uint64_t cycles = 0;
    harness.run([&] {
        cycles = harness.execute({gemm(DType::Int8, 64, 16, 16, 0xfff00, 0, false),
                                  gemm(DType::Int8, 64, 16, 16, 0, 0x1000, false)});
    });
    ASSERT_TRUE(harness.fault());
    EXPECT_EQ(harness.fault()->code, regs::ErrorCode::OnchipOutOfRange);
    EXPECT_EQ(harness.fault()->commandIndex, 0u);
    EXPECT_LT(cycles, 110u);  // the second GEMM never ran
}

}  // namespace
}  // namespace npusim::test

namespace npusim::test {
namespace {

/// The GEMM A[16x64] x B[64x16] as the tiles of one dataflow: weight stationary holds a
/// 16x16 block of B and streams the 16 rows of A (4 tiles over k); output stationary holds
/// the 16x16 result and streams all 64 steps of k (1 tile).
std::vector<isa::Command> gemm16x64x16(Dataflow dataflow) {
    std::vector<isa::Command> tiles;
    if (dataflow == Dataflow::OutputStationary) {
        tiles.push_back(gemm(DType::Int8, 16, 16, 64, 0, 0x1000, false));
        return tiles;
    }
    for (uint64_t k0 = 0; k0 < 64; k0 += 16) {
        isa::Command tile = gemm(DType::Int8, 16, 16, 16, k0, 0x1000 + k0 * 16, k0 > 0);
        tile.set(Field::AStride, 64);
        tiles.push_back(tile);
    }
    return tiles;
}

struct DataflowCase {
    const char* name;
    bool doubleBuffered;
    uint64_t cycles;
};

class DataflowTiming : public ::testing::TestWithParam<DataflowCase> {};

TEST_P(DataflowTiming, SameGemmUnderEachDataflow) {
    const DataflowCase& c = GetParam();
    const ArchConfig config = loadArchConfig(
        "edge", std::vector<std::string>{std::string("tensor.dataflow=") + c.name,
                                         std::string("tensor.double_buffered=") + (c.doubleBuffered ? "true" : "false")});
    UnitHarness harness{"harness", config};
    uint64_t cycles = 0;
    harness.run([&] { cycles = harness.execute(gemm16x64x16(config.tensor.dataflow)); });
    EXPECT_FALSE(harness.fault());
    EXPECT_EQ(cycles, c.cycles);
}

INSTANTIATE_TEST_SUITE_P(
    Dataflow, DataflowTiming,
    ::testing::Values(
        // Single-buffered weight stationary: 4 tiles, each weights 16 + stream 16 rows + fill 15
        // + drain 15 = 62, one after the other: 248.
        DataflowCase{"weight_stationary", false, 248},
        // Output stationary: 1 tile, stream 64 k steps + fill 15 + drain 15 + 16 result rows
        // shifted out = 110.
        DataflowCase{"output_stationary", false, 110},
        // Double-buffered weight stationary: tile i's 16 weight rows load while tile i-1 streams
        // its 16 rows, so after the first 16-cycle weight load the array streams 4 x 16 = 64
        // cycles and fills and drains once: 16 + 64 + 30 = 110.
        DataflowCase{"weight_stationary", true, 110},
        // Output stationary has nothing to preload: the same single tile, 110.
        DataflowCase{"output_stationary", true, 110}),
    [](const ::testing::TestParamInfo<DataflowCase>& info) {
        return std::string(info.param.name) + (info.param.doubleBuffered ? "_double" : "_single");
    });

TEST_F(UnitTiming, BackToBackTilesStreamWithoutGaps) {
    uint64_t cycles = 0;
    harness.run([&] {
        cycles = harness.execute({gemm(DType::Int8, 64, 16, 16, 0, 0x1000, false),
                                  gemm(DType::Int8, 64, 16, 16, 0, 0x1000, true)});
    });
    // The second tile's weights load over [16, 32) while the first streams over [16, 80); it
    // streams over [80, 144) and the pipeline drains after it: 144 + 30 = 174 (not 2 x 110).
    EXPECT_EQ(cycles, 174u);
}

TEST_F(UnitTiming, ASignalCountsUpWhenTheTileDrainsWhileTheArrayGoesOn) {
    uint64_t cycles = 0, loadStart = 0;
    harness.run([&] {
        cycles = harness.execute({gemm(DType::Int8, 64, 16, 16, 0, 0x1000, false),
                                  semaphore(isa::Opcode::SemSignal, isa::Queue::Tensor, 3),
                                  gemm(DType::Int8, 64, 16, 16, 0, 0x1000, true),
                                  semaphore(isa::Opcode::SemWait, isa::Queue::Load, 3),
                                  dma(isa::Opcode::DmaLoad, 0, 0x2000, 1, 256)});
    });
    // The signal is posted: the second tile streams right behind the first, as without it
    // (the array is done at 174, see above), while the semaphore counts up when the first
    // tile's results are in the accumulators, at 110. The load waits for that and takes 97
    // cycles: 110 + 97 = 207. A signal that held the array would end the job at 110 + 110.
    for (const trace::Event& e : harness.trace().events()) {
        if (e.type == trace::EventType::Command && e.opcode == isa::Opcode::DmaLoad) loadStart = e.start;
    }
    EXPECT_EQ(loadStart, 110u);
    EXPECT_EQ(cycles, 110u + 97u);
}

}  // namespace
}  // namespace npusim::test
