// ReverseSequence (either axis order, partial lengths), EyeLike (shifted diagonals, another
// dtype, folded to a constant at import) and Det (pivoting, singular and batched matrices)
// against hand-worked results, and their located errors.
#include <gtest/gtest.h>

#include "compiler/graph/constant_eval.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::runOp;
using testing::singleOpGraph;

TEST(InterpreterReverseSequence, ReversesEachEntrysLeadingSteps) {
    // [time 3, batch 2]: entry 0 reverses all 3 steps, entry 1 its first 2.
    const Tensor x = fp32({3, 2}, {0, 1, 2, 3, 4, 5});
    testing::expectTensorEq(runOp(OpKind::ReverseSequence, {x, int64({2}, {3, 2})}), fp32({3, 2}, {4, 3, 2, 1, 0, 5}));
    // [batch 2, time 3]: entry 0 keeps its order (length 1), entry 1 reverses 3.
    testing::expectTensorEq(runOp(OpKind::ReverseSequence, {fp32({2, 3}, {0, 1, 2, 3, 4, 5}), int64({2}, {1, 3})},
                                  {{"batch_axis", int64_t{0}}, {"time_axis", int64_t{1}}}),
                            fp32({2, 3}, {0, 1, 2, 5, 4, 3}));
    EXPECT_EQ(inputErrorOf([&] { runOp(OpKind::ReverseSequence, {x, int64({2}, {4, 1})}); }),
              "op 'op' (ReverseSequence): sequence length 4 is outside [0, 3]");
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::ReverseSequence, {x, int64({3}, {1, 1, 1})}); }),
              "op 'op' (ReverseSequence): sequence_lens must be [2] (one per batch entry), got [3]");
    EXPECT_EQ(inputErrorOf([&] {
                  singleOpGraph(OpKind::ReverseSequence, {x, int64({2}, {1, 1})}, {{"batch_axis", int64_t{0}}});
              }),
              "op 'op' (ReverseSequence): time_axis 0 and batch_axis 0 must be 0 and 1, one each");
}

TEST(InterpreterEyeLike, OnesOnAShiftedDiagonal) {
    const Tensor x = int32({3, 4}, std::vector<int32_t>(12, 9));
    testing::expectTensorEq(runOp(OpKind::EyeLike, {x}), int32({3, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));
    testing::expectTensorEq(runOp(OpKind::EyeLike, {x}, {{"k", int64_t{2}}, {"dtype", int64_t{1}}}),
                            fp32({3, 4}, {0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0}));
    testing::expectTensorEq(runOp(OpKind::EyeLike, {x}, {{"k", int64_t{-2}}}), int32({3, 4}, {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}));
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::EyeLike, {x}, {{"dtype", int64_t{11}}}); }),
              "op 'op' (EyeLike): dtype DOUBLE is not one npusim supports");
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::EyeLike, {fp32({2}, {1, 2})}); }),
              "op 'op' (EyeLike): input must be a matrix (rank 2), got [2]");
}

TEST(InterpreterEyeLike, FoldsToAConstantFromTheInputShapeAlone) {
    // The input is a graph input, not a constant: only its shape is read.
    const Graph graph = singleOpGraph(OpKind::EyeLike, {fp32({2, 2}, {5, 6, 7, 8})});
    const std::optional<std::vector<Tensor>> folded = evaluateIfConstant(graph, graph.nodes[0]);
    ASSERT_TRUE(folded);
    testing::expectTensorEq(folded->at(0), fp32({2, 2}, {1, 0, 0, 1}));
}

TEST(InterpreterDet, DeterminantsOfABatch) {
    // [[1, 2], [3, 4]]: -2; [[0, 1], [1, 0]] needs a row swap: -1; a singular matrix: 0.
    testing::expectTensorNear(runOp(OpKind::Det, {fp32({3, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0, 2, 4, 1, 2})}),
                              fp32({3}, {-2, -1, 0}));
    // 3x3 with a zero first pivot: 0*(1*0-2*1) - 1*(1*0-2*3) + 2*(1*1-1*3) = 6 - 4 = 2.
    testing::expectTensorNear(runOp(OpKind::Det, {fp32({3, 3}, {0, 1, 2, 1, 1, 2, 3, 1, 0})}), fp32({}, {2}));
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::Det, {fp32({2, 3}, {1, 2, 3, 4, 5, 6})}); }),
              "op 'op' (Det): X must be square matrices ([..., M, M]), got [2,3]");
}

}  // namespace
}  // namespace npusim::compiler
