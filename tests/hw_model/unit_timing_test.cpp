// Exact cycle counts of single commands on the `edge` preset, each derived in a comment from
// the unit's parameters: 800 MHz; DRAM 16 B/cycle, 56 cycles of controller latency, 12 to
// activate a row (tRCD), 12 to precharge one (tRP), 12 for a column access (tCAS): a first
// access to a bank has its data 80 cycles after issue; DMA bursts of
// 64 B, 32 outstanding; SRAM 16 banks x 16 B, accumulator 8 banks x 16 B; 16x16 array with
// int8 at 1 and fp32 at 4 cycles per row; vector unit 16 lanes, 4 pipeline stages.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "arch/arch_config.h"
#include "unit_harness.h"

namespace npusim::test {
namespace {

using isa::Command;
using isa::Field;
using Memory = UnitHarness::Memory;

Command dma(isa::Opcode opcode, uint64_t dram, uint64_t onchip, uint64_t rows, uint64_t rowBytes,
            isa::MemorySpace space = isa::MemorySpace::Sram) {
    Command c;
    c.opcode = opcode;
    c.kind = opcode == isa::Opcode::DmaLoad ? isa::CommandKind::Load : isa::CommandKind::Store;
    c.set(Field::DramAddr, dram).set(Field::OnchipAddr, onchip).set(Field::Rows, rows);
    c.set(Field::RowBytes, rowBytes).set(Field::DramStride, rowBytes).set(Field::OnchipStride, rowBytes);
    c.set(Field::Space, static_cast<uint64_t>(space));
    return c;
}

Command gemm(DType dtype, uint64_t m, uint64_t n, uint64_t k, uint64_t a, uint64_t b, bool accumulate) {
    Command c;
    c.opcode = isa::Opcode::Gemm;
    c.kind = isa::CommandKind::Compute;
    c.set(Field::AAddr, a).set(Field::BAddr, b).set(Field::CAddr, 0);
    c.set(Field::M, m).set(Field::N, n).set(Field::K, k).set(Field::DType, static_cast<uint64_t>(dtype));
    c.set(Field::AStride, k).set(Field::BStride, n).set(Field::CStride, n);
    c.set(Field::Accumulate, accumulate ? 1 : 0);
    return c;
}

Command semaphore(isa::Opcode opcode, isa::Queue queue, uint64_t sem) {
    Command c;
    c.opcode = opcode;
    c.kind = isa::CommandKind::Sync;
    c.set(Field::Queue, static_cast<uint64_t>(queue)).set(Field::Semaphore, sem);
    return c;
}

template <class T>
std::vector<std::byte> bytesOf(const std::vector<T>& values) {
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

template <class T>
std::vector<T> valuesOf(const std::vector<std::byte>& bytes) {
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
}

class UnitTiming : public ::testing::Test {
protected:
    UnitHarness harness{"harness", loadArchConfig("edge", {})};
};

TEST_F(UnitTiming, DmaLoadOfFourBursts) {
    std::vector<uint8_t> data(256);
    std::iota(data.begin(), data.end(), 0);
    uint64_t cycles = 0;
    harness.run([&] {
        harness.write(Memory::Dram, 0, bytesOf(data));
        cycles = harness.execute({dma(isa::Opcode::DmaLoad, 0, 0, 1, 256)});
    });
    // Bursts issue at cycles 0..3; the first returns data at 0 + 80 latency and holds the DRAM
    // bus for 64/16 = 4 cycles, the others follow back to back: bus busy [80, 96). Each burst
    // is written to SRAM (4 chunks in 4 different banks: 1 cycle) as its data arrives, the
    // last over [96, 97).
    EXPECT_EQ(cycles, 97u);
    EXPECT_EQ(valuesOf<uint8_t>(harness.read(Memory::Sram, 0, 256)), data);
}

TEST(UnitTimingWindow, DmaOutstandingWindowLimitsLatencyHiding) {
    UnitHarness harness{"harness", loadArchConfig("edge", std::vector<std::string>{"dma.max_outstanding=8"})};
    uint64_t cycles = 0;
    harness.run([&] { cycles = harness.execute({dma(isa::Opcode::DmaLoad, 0, 0, 1, 1024)}); });
    // 16 bursts, 8 in flight (edge with dma.max_outstanding=8). Bursts 0..7 issue at 0..7 and complete (in SRAM) at 85, 89, ...,
    // 113. Burst 8 issues when burst 0 completes (85), and each later one when the next slot
    // frees, 4 cycles apart: burst 15 issues at 113; its row is open, so its data comes after
    // the controller's 56 and the column access's 12 cycles, over [181, 185), and is in SRAM
    // at 186.
    EXPECT_EQ(cycles, 186u);
}

TEST_F(UnitTiming, DmaStoreRoundTripsData) {
    std::vector<int32_t> data(64);
    std::iota(data.begin(), data.end(), -20);
    uint64_t cycles = 0;
    harness.run([&] {
        harness.write(Memory::Accumulator, 0x100, bytesOf(data));
        cycles = harness.execute({dma(isa::Opcode::DmaStore, 0x4000, 0x100, 4, 64, isa::MemorySpace::Accumulator)});
    });
    // Four 64 B rows = 4 bursts. Burst i reads the accumulator at cycle i (4 chunks, 4 banks:
    // done at i+1), then writes DRAM after 80 cycles of latency: the bus is busy [81, 97).
    EXPECT_EQ(cycles, 97u);
    EXPECT_EQ(valuesOf<int32_t>(harness.read(Memory::Dram, 0x4000, 256)), data);
}

TEST_F(UnitTiming, OnchipMovesKeepDataOffDram) {
    std::vector<int32_t> data(64);
    std::iota(data.begin(), data.end(), 7);
    uint64_t toSram = 0, toAccumulator = 0;
    harness.run([&] {
        harness.write(Memory::Accumulator, 0x200, bytesOf(data));
        // A resident intermediate: stored from the accumulator to SRAM 0x8000, then loaded
        // back into the accumulator at 0x400.
        Command store = dma(isa::Opcode::DmaStore, 0x8000, 0x200, 4, 64, isa::MemorySpace::Accumulator);
        toSram = harness.execute({store.set(Field::OnchipMove, 1)});
        Command load = dma(isa::Opcode::DmaLoad, 0x8000, 0x400, 4, 64, isa::MemorySpace::Accumulator);
        toAccumulator = harness.execute({load.set(Field::OnchipMove, 1)});
    });
    EXPECT_EQ(valuesOf<int32_t>(harness.read(Memory::Sram, 0x8000, 256)), data);
    EXPECT_EQ(valuesOf<int32_t>(harness.read(Memory::Accumulator, 0x400, 256)), data);
    EXPECT_TRUE(harness.read(Memory::Dram, 0x8000, 256) == std::vector<std::byte>(256));
    // Four 64 B bursts issue at cycles 0..3; each reads 4 chunks from 4 banks in one cycle and
    // writes them to 4 banks in the next: the last is done at cycle 5, with no DRAM latency.
    EXPECT_EQ(toSram, 5u);
    EXPECT_EQ(toAccumulator, 5u);
}

TEST_F(UnitTiming, OnchipMoveOutsideSramFaults) {
    harness.run([&] {
        Command load = dma(isa::Opcode::DmaLoad, loadArchConfig("edge", {}).sram.sizeBytes - 64, 0, 2, 64);
        harness.execute({load.set(Field::OnchipMove, 1)});
    });
    ASSERT_TRUE(harness.fault());
    EXPECT_EQ(harness.fault()->code, regs::ErrorCode::OnchipOutOfRange);
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
    const auto c = valuesOf<int32_t>(harness.read(Memory::Accumulator, 0, 64 * 16 * 4));
    for (int i = 0; i < 64; ++i) {
        for (int j = 0; j < 16; ++j) {
            int32_t expected = 0;
            for (int p = 0; p < 16; ++p) expected += a[i * 16 + p] * b[p * 16 + j];
            ASSERT_EQ(c[i * 16 + j], expected) << i << "," << j;
        }
    }
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
    const auto c = valuesOf<int32_t>(harness.read(Memory::Accumulator, 0, 16 * 64 * 4));
    for (int i = 0; i < 16; ++i) {
        for (int j = 0; j < 64; ++j) {
            int32_t expected = 0;
            for (int p = 0; p < 16; ++p) expected += a[i * 16 + p] * b[p * 64 + j];
            ASSERT_EQ(c[i * 64 + j], expected) << i << "," << j;
        }
    }
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

TEST_F(UnitTiming, RowsContiguousInDramMakeFullBursts) {
    uint64_t cycles = 0;
    harness.run([&] {
        isa::Command load = dma(isa::Opcode::DmaLoad, 0, 0, 16, 16);  // 16 rows of 16 B, back to back
        load.set(Field::OnchipStride, 64);                             // spread out on chip
        cycles = harness.execute({load});
    });
    // The 256 B read as 4 bursts of 64 B (not 16 bursts of 16 B): DRAM bus [80, 96); each
    // burst lands as 4 rows of 16 B, 64 B apart on chip: banks 0, 4, 8, 12 (+1 per burst), one
    // cycle each; the last burst is in SRAM at 97.
    EXPECT_EQ(cycles, 97u);
}

}  // namespace
}  // namespace npusim::test

namespace npusim::test {
namespace {

TEST_F(UnitTiming, AStridedRowGathersInBurstsOfItsSpan) {
    std::vector<int32_t> data(64);
    std::iota(data.begin(), data.end(), 0);
    std::vector<int32_t> even(32);
    for (size_t i = 0; i < even.size(); ++i) even[i] = data[2 * i];
    uint64_t gather = 0, scatter = 0, elementwise = 0;
    harness.run([&] {
        harness.write(Memory::Dram, 0, bytesOf(data));
        // One row of 32 fp32 elements, 8 bytes apart: every other element of the 256 bytes.
        isa::Command load = dma(isa::Opcode::DmaLoad, 0, 0, 1, 128);
        gather = harness.execute({load.set(Field::ElemBytes, 4).set(Field::ElemStride, 8)});
        isa::Command store = dma(isa::Opcode::DmaStore, 0x1000, 0, 1, 128);
        scatter = harness.execute({store.set(Field::ElemBytes, 4).set(Field::ElemStride, 8)});
        // The same gather as 32 rows of one element.
        isa::Command rows = dma(isa::Opcode::DmaLoad, 0, 0x400, 32, 4);
        elementwise = harness.execute({rows.set(Field::DramStride, 8)});
    });
    EXPECT_EQ(valuesOf<int32_t>(harness.read(Memory::Sram, 0, 128)), even);
    EXPECT_EQ(valuesOf<int32_t>(harness.read(Memory::Sram, 0x400, 128)), even);
    const std::vector<int32_t> scattered = valuesOf<int32_t>(harness.read(Memory::Dram, 0x1000, 256));
    for (size_t i = 0; i < even.size(); ++i) {
        EXPECT_EQ(scattered[2 * i], even[i]);
        EXPECT_EQ(scattered[2 * i + 1], 0);  // the gaps are left alone
    }
    // 4 bursts of 8 elements (those below each 64 B boundary), issued at 0..3: each moves the
    // 60 B from its first element to its last over the DRAM bus (4688 ps, 3.75 cycles rounded
    // up to the picosecond), back to back from cycle 80 to just after 95; the last lands its
    // 32 B in SRAM (2 banks) in cycle 96: done at 97, as a contiguous 256 B load.
    EXPECT_EQ(gather, 97u);
    // The scatter reads SRAM at 0..3 (done 1..4); 0x1000 lies in bank 2 (2048 B rows, 8 banks),
    // not yet open: burst 0's data is on the bus at 1 + 56 + 12 + 12 = 81, the four take
    // 4 x 3.75 cycles: done just after 96, at 97.
    EXPECT_EQ(scatter, 97u);
    // One element per row is 32 bursts, issued a cycle apart into the open row: burst 31's
    // data is on the bus at 31 + 56 + 12 = 99 and in SRAM at 101.
    EXPECT_EQ(elementwise, 101u);
}

TEST_F(UnitTiming, ALoadRepeatingOneRowReadsItOnce) {
    std::vector<int32_t> data(16);
    std::iota(data.begin(), data.end(), 5);
    uint64_t cycles = 0;
    harness.run([&] {
        harness.write(Memory::Dram, 0, bytesOf(data));
        isa::Command load = dma(isa::Opcode::DmaLoad, 0, 0, 4, 64);
        cycles = harness.execute({load.set(Field::DramStride, 0)});  // one 64 B row, four times
    });
    for (uint64_t row = 0; row < 4; ++row) EXPECT_EQ(valuesOf<int32_t>(harness.read(Memory::Sram, row * 64, 64)), data);
    // One burst: its data on the bus over [80, 84), then written to the four on-chip rows
    // (banks 0-3, 4-7, 8-11, 12-15: no two in one bank) in one cycle: 85, not the 97 of four
    // bursts of the same bytes.
    EXPECT_EQ(cycles, 85u);
}

TEST_F(UnitTiming, DramRowHitsAndMisses) {
    uint64_t empty = 0, hit = 0, miss = 0;
    harness.run([&] {
        empty = harness.execute({dma(isa::Opcode::DmaLoad, 0, 0, 1, 64)});
        hit = harness.execute({dma(isa::Opcode::DmaLoad, 64, 0, 1, 64)});
        miss = harness.execute({dma(isa::Opcode::DmaLoad, 16384, 0, 1, 64)});
    });
    // No row open in bank 0: controller 56 + activate 12 + column 12, bus 4, SRAM 1 = 85.
    EXPECT_EQ(empty, 85u);
    // Offset 64 is in the open row: 56 + 12 + 4 + 1 = 73.
    EXPECT_EQ(hit, 73u);
    // Offset 16384 = 2048 B rows x 8 banks: bank 0 again, next row. Precharge 12 and
    // activate 12 first: 56 + 24 + 12 + 4 + 1 = 97.
    EXPECT_EQ(miss, 97u);
}

TEST(UnitTimingClosedPage, EveryAccessActivatesItsRow) {
    UnitHarness harness{"harness", loadArchConfig("edge", std::vector<std::string>{"dram.page_policy=closed"})};
    uint64_t first = 0, second = 0;
    harness.run([&] {
        first = harness.execute({dma(isa::Opcode::DmaLoad, 0, 0, 1, 64)});
        second = harness.execute({dma(isa::Opcode::DmaLoad, 64, 0, 1, 64)});
    });
    // Closed page: no row stays open, each access activates: 56 + 12 + 12 + 4 + 1 = 85.
    EXPECT_EQ(first, 85u);
    EXPECT_EQ(second, 85u);
}

}  // namespace
}  // namespace npusim::test

namespace npusim::test {
namespace {

TEST_F(UnitTiming, ThreeDimensionalDmaGathersPlanes) {
    std::vector<uint8_t> dram(4 * 128);
    std::iota(dram.begin(), dram.end(), 0);
    uint64_t cycles = 0;
    std::vector<uint8_t> onchip;
    harness.run([&] {
        harness.write(Memory::Dram, 0, bytesOf(dram));
        // 2 planes of 2 rows of 16 B: plane p row r at DRAM p*256 + r*128, packed on chip.
        isa::Command gather = dma(isa::Opcode::DmaLoad, 0, 0, 2, 16);
        gather.set(Field::DramStride, 128).set(Field::OnchipStride, 16);
        gather.set(Field::Planes, 2).set(Field::DramPlaneStride, 256).set(Field::OnchipPlaneStride, 32);
        cycles = harness.execute({gather});
        onchip = valuesOf<uint8_t>(harness.read(Memory::Sram, 0, 64));
    });
    for (int p = 0; p < 2; ++p) {
        for (int r = 0; r < 2; ++r) {
            for (int b = 0; b < 16; ++b) ASSERT_EQ(onchip[p * 32 + r * 16 + b], dram[p * 256 + r * 128 + b]);
        }
    }
    // 4 bursts of 16 B (one per row: the rows are not back to back in DRAM) issued at 0..3,
    // all in the first DRAM row (bank 0): the first waits 56 + 12 (activate) + 12 (column) =
    // 80, the others find the row open; each takes 1 bus cycle, data [80, 84), and 1 SRAM
    // cycle: the last is on chip at 85.
    EXPECT_EQ(cycles, 85u);
}

TEST(UnitTimingChannels, TwoChannelsDoubleTheBurstsInFlight) {
    UnitHarness harness{"harness", loadArchConfig("edge", std::vector<std::string>{"dma.max_outstanding=4",
                                                                                   "dma.channels=2"})};
    uint64_t cycles = 0;
    harness.run([&] { cycles = harness.execute({dma(isa::Opcode::DmaLoad, 0, 0, 1, 1024)}); });
    // 16 bursts alternate over 2 channels of 4 in flight each: 8 in flight, as with one channel
    // of 8 (DmaOutstandingWindowLimitsLatencyHiding). Bursts 0..7 issue at cycles 0,0,1,1,..,3,3
    // and hold the bus over [80, 112), landing at 85, 89, ..., 113; each later burst issues
    // when its channel's oldest lands (burst 8 at 85, burst 9 at 89, ...) and gets its data 68
    // cycles later: burst 15 issues at 113, bus [181, 185), on chip at 186, the same as one
    // channel of 8 (and sooner than one channel of 4).
    EXPECT_EQ(cycles, 186u);
}

}  // namespace
}  // namespace npusim::test
