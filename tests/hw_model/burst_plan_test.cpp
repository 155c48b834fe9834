// A DMA command's bursts, walked by BurstPlan, against the copy the command describes: every
// DRAM byte of every plane and row reaches its on-chip byte, once, through bursts that never
// cross a burst boundary. Random shapes: linear and padded rows, row tails and heads across
// bursts, strided elements, planes, indexed rows.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "hw_model/dma/burst_plan.h"

namespace npusim::hw {
namespace {

constexpr uint64_t kBurst = 64, kBase = 0x1000;

struct Shape {
    uint64_t planes, rows, rowBytes, dramStride, onchipStride, dramPlaneStride, onchipPlaneStride;
    uint64_t elemBytes = 1, elemStride = 0;  ///< strided rows: elements elemStride apart in DRAM
    std::vector<uint64_t> tableRows;         ///< indexed rows: the table row of each row
};

isa::Command commandFor(const Shape& s) {
    using isa::Field;
    isa::Command c;
    c.opcode = isa::Opcode::DmaLoad;
    c.kind = isa::CommandKind::Load;
    c.set(Field::DramAddr, 100).set(Field::OnchipAddr, 7).set(Field::Planes, s.planes).set(Field::Rows, s.rows);
    c.set(Field::RowBytes, s.rowBytes).set(Field::DramStride, s.dramStride).set(Field::OnchipStride, s.onchipStride);
    c.set(Field::DramPlaneStride, s.dramPlaneStride).set(Field::OnchipPlaneStride, s.onchipPlaneStride);
    c.set(Field::ElemBytes, s.elemBytes).set(Field::ElemStride, s.elemStride);
    return c;
}

/// On-chip address of each DRAM byte the bursts read.
std::map<uint64_t, uint64_t> walk(const isa::Command& command, const std::vector<uint64_t>& tableRows) {
    BurstPlan plan(command, tableRows, kBase, kBurst);
    std::map<uint64_t, uint64_t> bufferOfDram, onchipOfBuffer, onchipOfDram;
    for (Burst burst; plan.next(burst);) {
        const uint64_t elementBytes = burst.bytes / burst.elements;
        const uint64_t last = burst.dramAddress + (burst.elements - 1) * burst.elementStride + elementBytes - 1;
        EXPECT_EQ(burst.dramAddress / kBurst, last / kBurst) << "a burst crosses a burst boundary";
        for (uint64_t e = 0; e < burst.elements; ++e) {
            for (uint64_t b = 0; b < elementBytes; ++b) {
                const uint64_t dram = burst.dramAddress + e * burst.elementStride + b;
                EXPECT_TRUE(bufferOfDram.emplace(dram, burst.bufferOffset + e * elementBytes + b).second) << "byte read twice";
            }
        }
        for (int p = 0; p < burst.pieceCount; ++p) {
            const OnchipPiece& piece = burst.pieces[static_cast<size_t>(p)];
            for (uint64_t r = 0; r < piece.rows; ++r) {
                for (uint64_t b = 0; b < piece.rowBytes; ++b) {
                    onchipOfBuffer[piece.bufferOffset + r * piece.rowBytes + b] = piece.address + r * piece.stride + b;
                }
            }
        }
    }
    for (const auto& [dram, buffer] : bufferOfDram) {
        const auto onchip = onchipOfBuffer.find(buffer);
        EXPECT_NE(onchip, onchipOfBuffer.end()) << "DRAM byte " << dram << " lands nowhere on chip";
        if (onchip != onchipOfBuffer.end()) onchipOfDram[dram] = onchip->second;
    }
    return onchipOfDram;
}

/// The copy the command describes: on-chip address of each DRAM byte.
std::map<uint64_t, uint64_t> expected(const Shape& s) {
    std::map<uint64_t, uint64_t> onchipOfDram;
    for (uint64_t plane = 0; plane < s.planes; ++plane) {
        for (uint64_t row = 0; row < s.rows; ++row) {
            const uint64_t tableRow = s.tableRows.empty() ? row : s.tableRows[row];
            for (uint64_t c = 0; c < s.rowBytes; ++c) {
                const uint64_t element = c / s.elemBytes, byte = c % s.elemBytes;
                const uint64_t inRow = s.elemStride ? element * s.elemStride + byte : c;
                onchipOfDram[kBase + 100 + plane * s.dramPlaneStride + tableRow * s.dramStride + inRow] =
                    7 + plane * s.onchipPlaneStride + row * s.onchipStride + c;
            }
        }
    }
    return onchipOfDram;
}

TEST(BurstPlan, EveryByteOfRandomCopiesReachesItsPlaceOnce) {
    std::mt19937 rng(7);
    auto pick = [&](uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng); };
    for (int trial = 0; trial < 300; ++trial) {
        Shape s;
        s.planes = pick(1, 3);
        s.rows = pick(1, 6);
        s.rowBytes = pick(1, 200);
        const int kind = trial % 4;  // 0 linear, 1 padded rows, 2 strided elements, 3 indexed rows
        if (kind == 2) {
            s.elemBytes = uint64_t{1} << pick(0, 2);
            s.rowBytes = s.elemBytes * pick(1, 40);
            s.elemStride = s.elemBytes * pick(2, 5);
        }
        const uint64_t dramRow = kind == 2 ? (s.rowBytes / s.elemBytes - 1) * s.elemStride + s.elemBytes : s.rowBytes;
        // Strided elements stay aligned to their size (as the compiler lays them out).
        s.dramStride = kind == 0 ? s.rowBytes : dramRow + s.elemBytes * pick(1, 30);
        s.onchipStride = s.rowBytes + pick(0, 40);
        s.dramPlaneStride = s.dramStride * (s.rows + 8);
        s.onchipPlaneStride = s.onchipStride * s.rows + pick(0, 50);
        if (kind == 3) {
            for (uint64_t r = 0; r < s.rows; ++r) s.tableRows.push_back((r * 5 + 3) % 8);
        }
        SCOPED_TRACE("trial " + std::to_string(trial));
        EXPECT_EQ(walk(commandFor(s), s.tableRows), expected(s));
    }
}

TEST(BurstPlan, ABroadcastRowIsReadOnceAndWrittenToEveryRow) {
    const Shape s{1, 4, 100, 0, 128, 0, 0, 1, 0, {}};
    const std::vector<uint64_t> notIndexed;
    BurstPlan plan(commandFor(s), notIndexed, kBase, kBurst);
    uint64_t read = 0;
    for (Burst burst; plan.next(burst);) {
        EXPECT_EQ(burst.copies, 4u);
        EXPECT_EQ(burst.copyStride, 128u);
        read += burst.bytes;
    }
    EXPECT_EQ(read, 100u);
}

}  // namespace
}  // namespace npusim::hw
