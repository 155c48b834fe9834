// ArgMax and ArgMin: first or last index of the extreme, keepdims, and the located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::runOp;

/// [[1,5,5],[7,2,7]]: ties in both rows.
const Tensor kData = fp32({2, 3}, {1, 5, 5, 7, 2, 7});

TEST(InterpreterArgExtreme, FindsTheFirstOrLastExtreme) {
    testing::expectTensorEq(runOp(OpKind::ArgMax, {kData}, {{"axis", int64_t{1}}}),
                            int64({2, 1}, {1, 0}));
    testing::expectTensorEq(
        runOp(OpKind::ArgMax, {kData}, {{"axis", int64_t{-1}}, {"select_last_index", int64_t{1}}}),
        int64({2, 1}, {2, 2}));
    // Down the columns: min(1,7) row 0, min(5,2) row 1, min(5,7) row 0.
    testing::expectTensorEq(runOp(OpKind::ArgMin, {kData}, {{"keepdims", int64_t{0}}}),
                            int64({3}, {0, 1, 0}));
    testing::expectTensorEq(runOp(OpKind::ArgMin, {int32({4}, {3, -2, 8, -2})}), int64({1}, {1}));
}

TEST(InterpreterArgExtreme, RejectsEmptyAxesAndAxesOutOfRange) {
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::ArgMax, {fp32({2, 0}, {})}, {{"axis", int64_t{1}}});
              }),
              "op 'op' (ArgMax): axis 1 of [2,0] is empty, so it has no extreme element");
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::ArgMin, {kData}, {{"axis", int64_t{2}}});
              }),
              "op 'op' (ArgMin): axis 2 is out of range for rank 2");
}

}  // namespace
}  // namespace npusim::compiler
