// Vector tile IR: index spaces simplify without changing what they address, block transfers
// cover exactly the block's elements, and the builder picks operand modes and reuses buffers.
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <set>

#include "compiler/tile/index_space.h"
#include "compiler/tile/vector_builder.h"
#include "compiler/tile/vector_ir.h"

namespace npusim::compiler {
namespace {

using isa::VectorOp;

/// Runs whose elements lie any distance apart (a resident tensor's).
constexpr int64_t kAnyStride = std::numeric_limits<int64_t>::max();

/// Every (dram element, on-chip element) pair the transfers move.
std::set<std::pair<int64_t, int64_t>> coveredPairs(const std::vector<BlockTransfer>& transfers) {
    std::set<std::pair<int64_t, int64_t>> pairs;
    for (const BlockTransfer& t : transfers) {
        for (int64_t p = 0; p < t.planes; ++p) {
            for (int64_t r = 0; r < t.rows; ++r) {
                for (int64_t e = 0; e < t.rowElements; ++e) {
                    pairs.emplace(t.dramOffset + p * t.dramPlaneStride + r * t.dramRowStride + e * t.elementStride,
                                  t.onchipOffset + p * t.onchipPlaneStride + r * t.onchipRowStride + e);
                }
            }
        }
    }
    return pairs;
}

VectorProblem problemOf(Shape dims, int colDims) {
    VectorProblem p;
    p.dims = std::move(dims);
    p.colDims = colDims;
    return p;
}

TEST(IndexSpace, MergesDimsEveryOperandStepsThroughAlike) {
    // out[2,3,4] = a[2,3,4] + b[4]: the leading dims merge, the last stays apart because b
    // repeats along the others.
    IndexSpace space = denseSpace({2, 3, 4});
    space.add(broadcastTo({4}, {2, 3, 4}));
    EXPECT_EQ(simplifyDims(space, 0, 3), 2u);
    EXPECT_EQ(space.dims, (Shape{6, 4}));
    EXPECT_EQ(space.strides[0], (std::vector<int64_t>{4, 1}));
    EXPECT_EQ(space.strides[1], (std::vector<int64_t>{0, 1}));
}

TEST(IndexSpace, SplitsALongDimAtADivisor) {
    IndexSpace space = denseSpace({6000});
    EXPECT_TRUE(splitDim(space, 0, 4096));
    EXPECT_EQ(space.dims, (Shape{2, 3000}));  // 3000 is the largest divisor of 6000 up to 4096
    EXPECT_EQ(space.strides[0], (std::vector<int64_t>{3000, 1}));
    EXPECT_FALSE(splitDim(space, 1, 4096));
}

TEST(BlockTransfers, AContiguousBlockIsOneRun) {
    const VectorProblem p = problemOf({8, 16}, 1);
    const VectorSchedule s{0, 4, true, {}};
    const VectorBlock block{{}, 4, 4, 4};
    const auto transfers = blockTransfers(p, s, block, {0, 0, {16, 1}}, BufferExtent::Block, kAnyStride);
    ASSERT_EQ(transfers.size(), 1u);
    EXPECT_EQ(transfers[0].dramOffset, 64);
    EXPECT_EQ(transfers[0].rowElements, 64);
    EXPECT_EQ(transfers[0].rows, 1);
}

TEST(BlockTransfers, ATransposedViewMovesEveryElementOfTheBlock) {
    // Reading x[3,5] as its transpose: index (i, j) is element j*5 + i.
    const VectorProblem p = problemOf({5, 3}, 1);
    const VectorSchedule s{0, 2, true, {}};
    const VectorBlock block{{}, 2, 2, 2};
    const auto transfers = blockTransfers(p, s, block, {0, 0, {1, 5}}, BufferExtent::Block, kAnyStride);
    std::set<std::pair<int64_t, int64_t>> expected;
    for (int64_t i = 0; i < 2; ++i) {
        for (int64_t j = 0; j < 3; ++j) expected.emplace(j * 5 + (2 + i), i * 3 + j);
    }
    EXPECT_EQ(coveredPairs(transfers), expected);
}

TEST(BlockTransfers, AColumnBufferHoldsOneElementPerRow) {
    // A per-row operand (a bias broadcast along the columns) over a [4 | 6] block.
    const VectorProblem p = problemOf({4, 6}, 1);
    const VectorSchedule s{0, 4, true, {}};
    const VectorBlock block{{}, 0, 4, 4};
    const auto transfers = blockTransfers(p, s, block, {0, 0, {1, 0}}, BufferExtent::Column, kAnyStride);
    EXPECT_EQ(coveredPairs(transfers), (std::set<std::pair<int64_t, int64_t>>{{0, 0}, {1, 1}, {2, 2}, {3, 3}}));
}

TEST(BlockTransfers, SplitRowCountsBeyondTheIsaField) {
    // 100000 rows of two elements each, 4 apart: more than a 16-bit rows field holds.
    const VectorProblem p = problemOf({100000, 2}, 1);
    const VectorSchedule s{0, 100000, false, {}};
    const VectorBlock block{{}, 0, 100000, 100000};
    const auto transfers = blockTransfers(p, s, block, {0, 0, {4, 1}}, BufferExtent::Block, kAnyStride);
    ASSERT_EQ(transfers.size(), 2u);
    EXPECT_EQ(transfers[0].rows + transfers[1].rows, 100000);
    EXPECT_EQ(coveredPairs(transfers).size(), 200000u);
}

TEST(BlockTransfers, AStridedRowIsOneRunOfEvenlySpacedElements) {
    // A stride-2 window over x[8, 40]: 8 rows of 16 elements, every other one of each row's
    // first 32 (rows 40 apart do not merge into one run).
    const VectorProblem p = problemOf({8, 16}, 1);
    const VectorSchedule s{0, 8, true, {}};
    const VectorBlock block{{}, 0, 8, 8};
    const auto transfers = blockTransfers(p, s, block, {0, 1, {40, 2}}, BufferExtent::Block, kAnyStride);
    ASSERT_EQ(transfers.size(), 1u);
    EXPECT_EQ(transfers[0].rows, 8);
    EXPECT_EQ(transfers[0].rowElements, 16);
    EXPECT_EQ(transfers[0].elementStride, 2);
    EXPECT_EQ(transfers[0].rowSpan(), 31);
    std::set<std::pair<int64_t, int64_t>> expected;
    for (int64_t r = 0; r < 8; ++r) {
        for (int64_t c = 0; c < 16; ++c) expected.emplace(1 + r * 40 + 2 * c, r * 16 + c);
    }
    EXPECT_EQ(coveredPairs(transfers), expected);
}

TEST(BlockTransfers, ElementsFartherApartThanTheLimitAreRowsOfTheirOwn) {
    // A channel's element of x[16, 49]: 16 elements 49 apart, beyond a limit of 20 (from DRAM,
    // each is then a burst of its own).
    const VectorProblem p = problemOf({1, 16}, 1);
    const VectorSchedule s{0, 1, true, {}};
    const VectorBlock block{{}, 0, 1, 1};
    const auto rows = blockTransfers(p, s, block, {0, 3, {0, 49}}, BufferExtent::Block, 20);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].rows, 16);
    EXPECT_EQ(rows[0].rowElements, 1);
    EXPECT_EQ(rows[0].dramRowStride, 49);
    const auto run = blockTransfers(p, s, block, {0, 3, {0, 49}}, BufferExtent::Block, 49);
    ASSERT_EQ(run.size(), 1u);
    EXPECT_EQ(run[0].rowElements, 16);
    EXPECT_EQ(run[0].elementStride, 49);
    EXPECT_EQ(coveredPairs(rows), coveredPairs(run));
}

TEST(BlockTransfers, TheStrideLimitFollowsTheDramBandwidthPerDmaChannel) {
    // server: 327.68 DRAM bytes a cycle over 4 channels, 81 bytes: 20 fp32 elements.
    const ArchConfig server = loadArchConfig("server", {});
    EXPECT_EQ(maxElementStride(server, 4, false), 20);
    EXPECT_EQ(maxElementStride(server, 4, true), kAnyStride);
    // edge: 16 bytes a cycle on one channel: 4 fp32 elements, 16 int8 ones.
    const ArchConfig edge = loadArchConfig("edge", {});
    EXPECT_EQ(maxElementStride(edge, 4, false), 4);
    EXPECT_EQ(maxElementStride(edge, 1, false), 16);
}

TEST(VectorBlocks, CoverEveryRowOnce) {
    const VectorProblem p = problemOf({3, 5, 2, 7}, 1);
    const VectorSchedule s{1, 2, true, {}};
    int64_t rows = 0, blocks = 0;
    forEachVectorBlock(p, s, [&](const VectorBlock& block) {
        rows += block.rows;
        ++blocks;
    });
    EXPECT_EQ(rows, 3 * 5 * 2);
    EXPECT_EQ(blocks, 3 * 3);  // 3 prefixes, 5 split as 2 + 2 + 1
    int64_t counted = 0;
    forEachVectorBlockSize(p, s, [&](const VectorBlock& block, int64_t count) { counted += count * block.rows; });
    EXPECT_EQ(counted, rows);
}

TEST(VectorBuilder, BroadcastOperandsUseColumnAndRowModes) {
    VectorBuilder b(0, "test", {4, 8}, 1);
    const uint32_t x = b.load({1, 0, {8, 1}}, DType::Fp32);
    const uint32_t perRow = b.load({2, 0, {1, 0}}, DType::Fp32);
    const uint32_t perCol = b.load({3, 0, {0, 1}}, DType::Fp32);
    EXPECT_EQ(b.extentOf(x), BufferExtent::Block);
    EXPECT_EQ(b.extentOf(perRow), BufferExtent::Column);
    EXPECT_EQ(b.extentOf(perCol), BufferExtent::Row);
    // perRow - x: the broadcast operand comes first, so the builder computes -(x - perRow).
    const uint32_t diff = b.binary(VectorOp::Sub, perRow, x);
    b.store(b.binary(VectorOp::Add, diff, perCol), {4, 0, {8, 1}});
    const VectorProblem p = b.finish();
    ASSERT_EQ(p.steps.size(), 3u);
    EXPECT_EQ(p.steps[0].op, VectorOp::Sub);
    EXPECT_EQ(p.steps[1].op, VectorOp::Mul);
    EXPECT_EQ(p.steps[1].immediate, fp32Bits(-1.0f));
    EXPECT_EQ(p.steps[2].op, VectorOp::Add);
}

TEST(VectorBuilder, ReusesDeadBuffersAndKeepsLoadsApart) {
    VectorBuilder b(0, "chain", {4, 8}, 1);
    const uint32_t x = b.load({1, 0, {8, 1}}, DType::Fp32);
    const uint32_t y = b.load({2, 0, {8, 1}}, DType::Fp32);
    uint32_t v = b.binary(VectorOp::Add, x, y);
    v = b.unary(VectorOp::Exp, v);
    v = b.unary(VectorOp::Tanh, v);
    b.store(v, {3, 0, {8, 1}});
    const VectorProblem p = b.finish();
    EXPECT_EQ(p.buffers.size(), 2u);  // the two loads; every step writes over a dead one
    EXPECT_NE(p.loads[0].buffer, p.loads[1].buffer);
}

TEST(VectorBuilder, ComputesNarrowIntegersInInt32) {
    VectorBuilder b(0, "uint8 add", {4, 8}, 1);
    const uint32_t x = b.load({1, 0, {8, 1}}, DType::UInt8);
    const uint32_t y = b.load({2, 0, {8, 1}}, DType::UInt8);
    const uint32_t sum = b.binary(VectorOp::Add, x, y);
    EXPECT_EQ(b.dtypeOf(sum), DType::Int32);
    // Each operand is widened once, however often it is used.
    b.binary(VectorOp::Max, sum, x);
    const VectorProblem p = b.finish();
    ASSERT_EQ(p.steps.size(), 4u);
    EXPECT_EQ(p.steps[0].op, VectorOp::Cast);
    EXPECT_EQ(p.steps[1].op, VectorOp::Cast);
    EXPECT_EQ(p.steps[2].op, VectorOp::Add);
    EXPECT_EQ(p.steps[3].op, VectorOp::Max);
}

TEST(VectorBuilder, OrdersNarrowIntegersAsTheyAreUnlessTheOtherOperandIsWide) {
    VectorBuilder b(0, "int8 max", {4, 8}, 1);
    const uint32_t x = b.load({1, 0, {8, 1}}, DType::Int8);
    const uint32_t y = b.load({2, 0, {8, 1}}, DType::Int8);
    const uint32_t m = b.binary(VectorOp::Max, x, y);
    EXPECT_EQ(b.dtypeOf(m), DType::Int8);
    const uint32_t sum = b.binary(VectorOp::Add, x, y);
    EXPECT_EQ(b.dtypeOf(b.binary(VectorOp::Max, m, sum)), DType::Int32);
    const VectorProblem p = b.finish();
    ASSERT_EQ(p.steps.size(), 6u);  // max; widen x, y; add; widen m; max
    EXPECT_EQ(p.steps[0].op, VectorOp::Max);
    EXPECT_EQ(p.buffers[p.steps[0].dst].dtype, DType::Int8);
    EXPECT_EQ(p.steps[4].op, VectorOp::Cast);
    EXPECT_EQ(p.steps[5].op, VectorOp::Max);
}

TEST(VectorBuilder, ComputesSixteenBitFloatsInFp32) {
    VectorBuilder b(0, "fp16 max", {2, 8}, 1);
    const uint32_t m = b.binary(VectorOp::Max, b.load({1, 0, {8, 1}}, DType::Fp16), b.load({2, 0, {8, 1}}, DType::Fp16));
    EXPECT_EQ(b.dtypeOf(m), DType::Fp32);
    const VectorProblem p = b.finish();
    ASSERT_EQ(p.steps.size(), 3u);
    EXPECT_EQ(p.steps[0].op, VectorOp::Cast);
    EXPECT_EQ(p.steps[2].op, VectorOp::Max);
}

TEST(VectorBuilder, DividesIntegersThroughFp32AndTruncates) {
    VectorBuilder b(0, "int div", {1, 8}, 1);
    const uint32_t q = b.binary(VectorOp::Div, b.load({1, 0, {8, 1}}, DType::Int32), b.load({2, 0, {8, 1}}, DType::Int32));
    EXPECT_EQ(b.dtypeOf(q), DType::Int32);
    const VectorProblem p = b.finish();
    ASSERT_EQ(p.steps.size(), 4u);
    EXPECT_EQ(p.steps[2].op, VectorOp::Div);
    EXPECT_EQ(p.steps[3].op, VectorOp::Cast);
}

TEST(VectorBuilder, RejectsWhatTheVectorUnitCannotDo) {
    VectorBuilder b(0, "int exp", {1, 8}, 1);
    const uint32_t x = b.load({1, 0, {0, 1}}, DType::Int32);
    EXPECT_THROW(b.unary(VectorOp::Exp, x), VectorUnsupported);
}

/// A 3x3, stride-2 window with padding 1 over [1, 4, 8, 8] planes: 4x4 outputs, the input
/// planes in rows of 10x10 (one row and column of padding before, one after), the window's
/// taps 2 padded rows (20 elements) apart per output row and 2 elements per output column.
struct StridedWindow {
    VectorProblem problem;
    uint32_t plane = 0, result = 0;
    static constexpr int64_t kWidth = 100;

    explicit StridedWindow(bool weights = false) {
        VectorBuilder b(0, "window", {1, 4, 4, 4}, 2);
        const PlaneLayout layout{{8, 8}, {8, 1}, {10, 1}, 11, fp32Bits(-1.0f)};
        plane = b.loadPlane({1, 0, {256, 64, 0, 0}}, DType::Fp32, layout, kWidth);
        // The running max of the tap at (0, 0) and the tap at (2, 1), or the tap against a column.
        const uint32_t src1 = weights ? b.load({2, 0, {0, 1, 0, 0}}, DType::Fp32)
                                      : b.window(VectorOp::Copy, plane, {0, {20, 2}}, std::nullopt);
        result = b.window(VectorOp::Max, plane, {21, {20, 2}}, src1);
        b.store(result, {3, 0, {64, 16, 4, 1}});
        problem = b.finish();
    }
};

TEST(WindowIr, APlaneLoadPlacesEachPlaneInItsPaddedRow) {
    const StridedWindow w;
    const VectorSchedule s{1, 4, true, {}};
    VectorBlock block;
    block.prefix = {0};
    block.extent = block.rows = 4;
    const auto transfers = loadTransfers(w.problem, s, block, w.problem.loads[0], kAnyStride);
    ASSERT_EQ(transfers.size(), 1u);  // 4 planes of 8 rows of 8 elements
    std::set<std::pair<int64_t, int64_t>> expected;
    for (int64_t c = 0; c < 4; ++c) {
        for (int64_t h = 0; h < 8; ++h) {
            for (int64_t x = 0; x < 8; ++x) expected.emplace(c * 64 + h * 8 + x, c * StridedWindow::kWidth + 11 + h * 10 + x);
        }
    }
    EXPECT_EQ(coveredPairs(transfers), expected);
    EXPECT_EQ(bufferElements(w.problem, w.problem.buffers[w.plane], 4), 400);
    EXPECT_TRUE(hasWindows(w.problem));
}

TEST(WindowIr, CommandsTakeTheBlockRowsOrTheOutputRowsWhicheverIsFewer) {
    const StridedWindow w;
    const VectorStep& step = w.problem.steps.back();
    // Four channels: one command per output row, the channels as its rows.
    const std::vector<WindowCommand> byChannel = windowCommands(w.problem, step, 4);
    ASSERT_EQ(byChannel.size(), 4u);
    for (int64_t i = 0; i < 4; ++i) {
        const WindowCommand& c = byChannel[static_cast<size_t>(i)];
        EXPECT_EQ(c.dst, i * 4);
        EXPECT_EQ(c.src0, 21 + i * 20);
        EXPECT_EQ(c.src1, i * 4);  // the running max, a block like dst
        EXPECT_EQ(c.rows, 4);
        EXPECT_EQ(c.cols, 4);
        EXPECT_EQ(c.dstStride, 16);
        EXPECT_EQ(c.src0Stride, StridedWindow::kWidth);
        EXPECT_EQ(c.src0ColStride, 2);
    }
    // One channel: one command with the output rows as its rows.
    const std::vector<WindowCommand> byRow = windowCommands(w.problem, step, 1);
    ASSERT_EQ(byRow.size(), 1u);
    EXPECT_EQ(byRow[0].rows, 4);
    EXPECT_EQ(byRow[0].dstStride, 4);
    EXPECT_EQ(byRow[0].src0Stride, 20);
    EXPECT_EQ(byRow[0].src0ColStride, 2);
}

TEST(WindowIr, AColumnOperandIsOneScalarPerCommandWhenTheRowsAreOutputRows) {
    const StridedWindow w(true);
    const std::vector<WindowCommand> byRow = windowCommands(w.problem, w.problem.steps.back(), 2);
    ASSERT_EQ(byRow.size(), 2u);  // 2 channels < 4 output rows
    EXPECT_TRUE(byRow[1].src1Scalar);
    EXPECT_EQ(byRow[1].src1, 1);  // channel 1's value
    EXPECT_EQ(byRow[1].dst, 16);
    EXPECT_EQ(byRow[1].src0, StridedWindow::kWidth + 21);
}

TEST(WindowIr, PaddedBlockRowsMakeEachTapOneRunAndStoreAroundThePadding) {
    StridedWindow w;
    w.problem.colPitch = {10, 1};  // output row i at 10 i: the window's 20 = 2 x 10
    EXPECT_EQ(w.problem.blockCols(), 40);
    const std::vector<WindowCommand> commands = windowCommands(w.problem, w.problem.steps.back(), 4);
    ASSERT_EQ(commands.size(), 1u);
    EXPECT_EQ(commands[0].cols, 3 * 10 + 3 + 1);
    EXPECT_EQ(commands[0].dstStride, 40);
    EXPECT_EQ(commands[0].src0ColStride, 2);
    const VectorSchedule s{1, 4, true, {}};
    VectorBlock block;
    block.prefix = {0};
    block.extent = block.rows = 4;
    std::set<std::pair<int64_t, int64_t>> expected;
    for (int64_t c = 0; c < 4; ++c) {
        for (int64_t h = 0; h < 4; ++h) {
            for (int64_t x = 0; x < 4; ++x) expected.emplace(c * 16 + h * 4 + x, c * 40 + h * 10 + x);
        }
    }
    const VectorStore& store = w.problem.stores[0];
    EXPECT_EQ(coveredPairs(blockTransfers(w.problem, s, block, store.view, BufferExtent::Block, kAnyStride)), expected);
}

}  // namespace
}  // namespace npusim::compiler
