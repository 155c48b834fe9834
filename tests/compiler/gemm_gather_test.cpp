// Gathered GEMM operands: the transfers of every block, carried out on host memory, rebuild
// exactly the Im2Col matrix they stand for, each element written once, also where a slot's
// padding fills are left in place; and the fusion pass hands a convolution's Im2Col to its GEMM
// when gathering is cheaper.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "arch/arch_config.h"
#include "compiler/cost/cost_model.h"
#include "compiler/graph/interpreter.h"
#include "compiler/graph/strided_copy.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/tile/gemm_gather.h"
#include "compiler/tiling/fusion.h"
#include "compiler/tiling/tiling.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

Tensor iota(Shape shape) {
    std::vector<float> values(static_cast<size_t>(elementCount(shape)));
    std::iota(values.begin(), values.end(), 1.0f);
    return testing::fp32(std::move(shape), values);
}

TEST(GemmGather, TransfersRebuildTheMatrixBlockByBlock) {
    const Tensor x = iota({2, 3, 7, 6});
    const Graph graph = testing::constantOperandGraph(
        OpKind::Im2Col, {x}, {},
        {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 2, 1, 0}},
         {"strides", std::vector<int64_t>{1, 2}}});
    const Tensor expected = interpretGraph(graph, {{"in0", x}}).at(0);
    ASSERT_EQ(expected.shape.size(), 2u);
    const int64_t k = expected.shape[0], n = expected.shape[1];
    GemmProblem p;
    p.m = 4;
    p.k = k;
    p.n = n;
    const std::vector<StridedCopy> copies = stridedCopies(graph, graph.nodes[0]).value();
    for (const StridedCopy& copy : copies) p.b.gather.push_back({graph.inputs[0], copy});
    for (const auto& [kBlock, nBlock] : {std::pair<int64_t, int64_t>{7, 5}, {k, n}, {16, 11}}) {
        std::vector<float> rebuilt(static_cast<size_t>(k * n), -1.0f);
        std::vector<int> writes(rebuilt.size(), 0);
        for (int64_t k0 = 0; k0 < k; k0 += kBlock) {
            for (int64_t n0 = 0; n0 < n; n0 += nBlock) {
                const GemmBlock block{0, 0, n0, k0, 4, std::min(nBlock, n - n0), std::min(kBlock, k - k0), true, true};
                forEachGatherTransfer(p, block, [&](const GatherTransfer& t) {
                    for (int64_t r = 0; r < t.rows; ++r) {
                        for (int64_t j = 0; j < t.length; ++j) {
                            const int64_t row = k0 + t.blockRow + r * t.rowStep, col = n0 + t.blockCol + j;
                            ASSERT_LT(t.blockRow + r * t.rowStep, block.k);
                            ASSERT_LT(t.blockCol + j, block.n);
                            const float value = t.piece->copy.fill
                                                    ? 0.0f
                                                    : x.as<float>()[t.sourceOffset + r * t.rowInStride + j * t.runInStride];
                            rebuilt[static_cast<size_t>(row * n + col)] = value;
                            ++writes[static_cast<size_t>(row * n + col)];
                        }
                    }
                });
            }
        }
        SCOPED_TRACE("blocks of " + std::to_string(kBlock) + " x " + std::to_string(nBlock));
        EXPECT_TRUE(std::all_of(writes.begin(), writes.end(), [](int w) { return w == 1; }));
        EXPECT_EQ(std::memcmp(rebuilt.data(), expected.bytes.data(), expected.bytes.size()), 0);
    }
}

TEST(GemmGather, BlocksOfWholeImageRowsFindTheirFillsInPlace) {
    // A 3x3 convolution's patches (padding 1) of a 2 x 16 x 8 image: 18 x 128, image rows of 8.
    const Tensor x = iota({1, 2, 16, 8});
    const Graph graph = testing::constantOperandGraph(
        OpKind::Im2Col, {x}, {}, {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
    const Tensor expected = interpretGraph(graph, {{"in0", x}}).at(0);
    GemmProblem p;
    p.m = 4;
    p.k = 18;
    p.n = 128;
    const std::vector<StridedCopy> copies = stridedCopies(graph, graph.nodes[0]).value();
    for (const StridedCopy& copy : copies) p.b.gather.push_back({graph.inputs[0], copy});
    // Power-of-two sizes rounded down to whole image rows, and to whole rows of whole 16-column tiles.
    EXPECT_EQ(gatherAlignedBlocks(p, {10, 20, 40, 128}, 16), (std::vector<int64_t>{8, 16, 32}));
    EXPECT_TRUE(gatherAlignedBlocks(GemmProblem{}, {64}, 16).empty());

    // Blocks of two image rows through two slots: the first block of each slot writes its fills,
    // the third (the top padding rows gone) and the last (the bottom ones) too; the interior
    // blocks find the side padding where the slot's previous block left it.
    const int64_t nBlock = 16;
    std::vector<std::vector<float>> slots(2, std::vector<float>(static_cast<size_t>(p.k * nBlock), -1.0f));
    SlotFills held(2);
    std::vector<bool> written;
    for (int64_t n0 = 0, index = 0; n0 < p.n; n0 += nBlock, ++index) {
        std::vector<float>& slot = slots[static_cast<size_t>(index % 2)];
        const GemmBlock block{0, 0, n0, 0, 4, nBlock, p.k, true, true};
        std::vector<GatherFill> fills;
        forEachGatherTransfer(p, block, [&](const GatherTransfer& t) {
            if (t.piece->copy.fill) fills.push_back(gatherFill(t));
        });
        written.push_back(held.needed(static_cast<size_t>(index % 2), fills));
        forEachGatherTransfer(p, block, [&](const GatherTransfer& t) {
            if (t.piece->copy.fill && !written.back()) return;
            for (int64_t r = 0; r < t.rows; ++r) {
                for (int64_t j = 0; j < t.length; ++j) {
                    slot[static_cast<size_t>((t.blockRow + r * t.rowStep) * nBlock + t.blockCol + j)] =
                        t.piece->copy.fill ? 0.0f : x.as<float>()[t.sourceOffset + r * t.rowInStride + j * t.runInStride];
                }
            }
        });
        for (int64_t row = 0; row < p.k; ++row) {
            for (int64_t col = 0; col < nBlock; ++col) {
                ASSERT_EQ(slot[static_cast<size_t>(row * nBlock + col)], expected.as<float>()[row * p.n + n0 + col])
                    << "block " << index << " row " << row << " col " << col;
            }
        }
    }
    EXPECT_EQ(written, (std::vector<bool>{true, true, true, false, false, false, false, true}));
}

TEST(GemmGather, AConvolutionsGemmGathersItsPatches) {
    // A 3x3 convolution on edge: gathering beats materialising the patch matrix.
    Tensor w = Tensor::zeros(DType::Fp32, {32, 16, 3, 3});
    Graph graph = testing::constantOperandGraph(OpKind::Conv, {Tensor::zeros(DType::Fp32, {1, 16, 28, 28}), w}, {1},
                                                {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
    convolutionToGemm(graph);
    const ArchConfig edge = loadArchConfig("edge", {});
    const CostModel model(edge);
    TileProgram program = lowerToTiles(graph, edge, model);
    EXPECT_EQ(fuseGatheredOperands(program, graph, edge, model), 1);
    EXPECT_EQ(std::get<VectorTiles>(program.ops[0]).fusedInto, 1u);
    EXPECT_FALSE(std::get<GemmTiles>(program.ops[1]).problem.b.gather.empty());
}

}  // namespace
}  // namespace npusim::compiler
