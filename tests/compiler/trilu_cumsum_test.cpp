// Trilu (triangles with a shifted diagonal) and CumSum (exclusive, reverse, integer wrap-around)
// against hand-worked matrices, and their located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::runOp;

/// [[1,2,3],[4,5,6],[7,8,9]]
const Tensor kSquare = int64({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});

TEST(InterpreterTrilu, KeepsATriangle) {
    testing::expectTensorEq(runOp(OpKind::Trilu, {kSquare}),
                            int64({3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9}));
    // Lower, below the diagonal: column - row <= -1.
    testing::expectTensorEq(
        runOp(OpKind::Trilu, {kSquare, int64({}, {-1})}, {{"upper", int64_t{0}}}),
        int64({3, 3}, {0, 0, 0, 4, 0, 0, 7, 8, 0}));
    // Each matrix of a batch: upper from the first superdiagonal.
    testing::expectTensorEq(
        runOp(OpKind::Trilu, {fp32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), int64({}, {1})}),
        fp32({2, 2, 2}, {0, 2, 0, 0, 0, 6, 0, 0}));
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::Trilu, {fp32({3}, {1, 2, 3})});
              }),
              "op 'op' (Trilu): input must have rank >= 2, got [3]");
}

TEST(InterpreterCumSum, SumsForwardBackwardAndExclusively) {
    const Tensor x = fp32({2, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor columns = int64({}, {1});
    testing::expectTensorEq(runOp(OpKind::CumSum, {x, columns}), fp32({2, 3}, {1, 3, 6, 4, 9, 15}));
    testing::expectTensorEq(runOp(OpKind::CumSum, {x, columns}, {{"exclusive", int64_t{1}}}),
                            fp32({2, 3}, {0, 1, 3, 0, 4, 9}));
    testing::expectTensorEq(runOp(OpKind::CumSum, {x, columns}, {{"reverse", int64_t{1}}}),
                            fp32({2, 3}, {6, 5, 3, 15, 11, 6}));
    testing::expectTensorEq(
        runOp(OpKind::CumSum, {x, columns}, {{"reverse", int64_t{1}}, {"exclusive", int64_t{1}}}),
        fp32({2, 3}, {5, 3, 0, 11, 6, 0}));
    testing::expectTensorEq(runOp(OpKind::CumSum, {x, int32({1}, {-2})}),
                            fp32({2, 3}, {1, 2, 3, 5, 7, 9}));
    // int32 sums wrap: 2147483647 + 1 = -2147483648.
    testing::expectTensorEq(runOp(OpKind::CumSum, {int32({2}, {2147483647, 1}), int64({}, {0})}),
                            int32({2}, {2147483647, -2147483647 - 1}));
}

TEST(InterpreterCumSum, RejectsUnsupportedDTypesAndAxes) {
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::CumSum, {testing::int8({2}, {1, 2}), int64({}, {0})});
              }),
              "op 'op' (CumSum): x is int8; CumSum supports fp32, fp16, bf16, int32, int64");
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::CumSum, {fp32({2}, {1, 2}), int64({2}, {0, 0})});
              }),
              "op 'op' (CumSum): axis must hold one element, got [2]");
}

}  // namespace
}  // namespace npusim::compiler
