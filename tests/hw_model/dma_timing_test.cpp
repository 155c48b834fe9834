// Exact cycle counts of single DMA commands and of the DRAM behind them on the `edge` preset
// (unit_timing_support.h gives its parameters): bursts, the outstanding window, channels,
// strided, repeated, 3D and indexed transfers, on-chip moves, open and closed DRAM rows.
#include <gtest/gtest.h>

#include <numeric>

#include "unit_timing_support.h"

namespace npusim::test {
namespace {

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

TEST_F(UnitTiming, AStridedOnchipReadTakesEachBankWordOnce) {
    std::vector<int8_t> data(64);
    std::iota(data.begin(), data.end(), -32);
    std::vector<int8_t> even(32);
    for (size_t i = 0; i < even.size(); ++i) even[i] = data[2 * i];
    uint64_t cycles = 0;
    harness.run([&] {
        harness.write(Memory::Sram, 0x800, bytesOf(data));
        // Every other int8 element of 64 bytes in SRAM (an im2col tap of a stride-2
        // convolution), moved on chip into 32 contiguous bytes.
        isa::Command move = dma(isa::Opcode::DmaLoad, 0x800, 0, 1, 32);
        cycles = harness.execute({move.set(Field::OnchipMove, 1).set(Field::ElemBytes, 1).set(Field::ElemStride, 2)});
    });
    EXPECT_EQ(valuesOf<int8_t>(harness.read(Memory::Sram, 0, 32)), even);
    // One burst: its 32 elements lie in the 4 bank words (16 B each, 4 banks) of their 63 B
    // span, each read once in cycle 0, not a word per element (8 cycles in each bank); the 32 B
    // land in 2 banks in cycle 1: done at 2.
    EXPECT_EQ(cycles, 2u);
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

/// An indexed load of 4 rows of 16 B from a table of 8 rows at DRAM 0, its int64 indices at
/// 0x1000.
Command indexedLoad() {
    Command load = dma(isa::Opcode::DmaLoad, 0, 0, 4, 16);
    return load.set(Field::IndexAddr, 0x1000).set(Field::IndexBytes, 8).set(Field::IndexLimit, 8);
}

TEST_F(UnitTiming, AnIndexedLoadReadsItsListThenTheRowsItNames) {
    std::vector<float> table(8 * 4);
    std::iota(table.begin(), table.end(), 0.0f);
    const std::vector<int64_t> indices{5, -1, 0, 5};  // -1 counts back from the 8 rows: row 7
    uint64_t cycles = 0;
    std::vector<float> rows;
    harness.run([&] {
        harness.write(Memory::Dram, 0, bytesOf(table));
        harness.write(Memory::Dram, 0x1000, bytesOf(indices));
        cycles = harness.execute({indexedLoad()});
        rows = valuesOf<float>(harness.read(Memory::Sram, 0, 64));
    });
    const int picked[] = {5, 7, 0, 5};
    for (size_t r = 0; r < 4; ++r) {
        for (size_t c = 0; c < 4; ++c) EXPECT_EQ(rows[r * 4 + c], table[static_cast<size_t>(picked[r]) * 4 + c]);
    }
    // The list's 32 B are one burst, issued at 0 to bank 2 (0x1000 = 2 x 2048 B), no row open:
    // its data is on the bus over [80, 82). The rows' bursts, one per row (16 B each, the
    // rows not back to back), issue at 82..85 to bank 0, whose row is not open yet: the first
    // waits 56 + 12 + 12 = 80, bus [162, 163), in SRAM at 164; the others follow into the open
    // row a bus cycle apart, the last in SRAM at 167.
    EXPECT_EQ(cycles, 167u);
}

TEST_F(UnitTiming, AnIndexOutsideTheTableFaults) {
    harness.run([&] {
        harness.write(Memory::Dram, 0x1000, bytesOf(std::vector<int64_t>{0, 1, 8, 2}));  // 8: one past the table
        harness.execute({indexedLoad()});
    });
    ASSERT_TRUE(harness.fault());
    EXPECT_EQ(harness.fault()->code, regs::ErrorCode::IndexOutOfRange);
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
