// Slice against hand-picked windows: default axes and steps, clamped starts and ends, negative
// steps, opset 1's attributes, and the located errors.
#include <gtest/gtest.h>

#include <cstdint>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int64;
using testing::runOp;
using testing::runWithConstants;

/// [[0,1,2,3],[4,5,6,7],[8,9,10,11]]
const Tensor kGrid = fp32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});

Tensor slice(const std::vector<std::optional<Tensor>>& operands) {
    std::vector<std::optional<Tensor>> inputs = {kGrid};
    inputs.insert(inputs.end(), operands.begin(), operands.end());
    return runWithConstants(OpKind::Slice, inputs, {1, 2, 3, 4}).at(0);
}

TEST(InterpreterSlice, TakesAWindowOfTheLeadingAxesByDefault) {
    // Rows 1..2, columns 0..2.
    testing::expectTensorEq(slice({int64({2}, {1, 0}), int64({2}, {3, 3})}),
                            fp32({2, 3}, {4, 5, 6, 8, 9, 10}));
}

TEST(InterpreterSlice, ClampsStartsAndEndsToTheAxis) {
    testing::expectTensorEq(
        slice({int64({1}, {-100}), int64({1}, {100}), int64({1}, {1}), std::nullopt}), kGrid);
    testing::expectTensorEq(slice({int64({1}, {5}), int64({1}, {9}), int64({1}, {0})}),
                            fp32({0, 4}, {}));
}

TEST(InterpreterSlice, WalksBackwardsWithNegativeSteps) {
    // Columns 3 and 1 of each row; the most negative end means "through index 0".
    testing::expectTensorEq(
        slice({int64({1}, {-1}), int64({1}, {INT64_MIN}), int64({1}, {-1}), int64({1}, {-2})}),
        fp32({3, 2}, {3, 1, 7, 5, 11, 9}));
    // Rows 2 down to 1 (the end, 0, is excluded), every column.
    testing::expectTensorEq(
        slice({int64({1}, {2}), int64({1}, {0}), int64({1}, {0}), int64({1}, {-1})}),
        fp32({2, 4}, {8, 9, 10, 11, 4, 5, 6, 7}));
}

TEST(InterpreterSlice, TakesOpset1Attributes) {
    testing::expectTensorEq(runOp(OpKind::Slice, {kGrid},
                                  {{"starts", std::vector<int64_t>{0}},
                                   {"ends", std::vector<int64_t>{1}},
                                   {"axes", std::vector<int64_t>{1}}}),
                            fp32({3, 1}, {0, 4, 8}));
}

TEST(InterpreterSlice, RejectsZeroStepsRepeatedAxesAndVariableStarts) {
    EXPECT_EQ(inputErrorOf([] {
                  slice({int64({1}, {0}), int64({1}, {1}), int64({1}, {0}), int64({1}, {0})});
              }),
              "op 'op' (Slice): steps must not be 0 (axis 0)");
    EXPECT_EQ(inputErrorOf([] {
                  slice({int64({2}, {0, 0}), int64({2}, {1, 1}), int64({2}, {1, -1})});
              }),
              "op 'op' (Slice): axis 1 is sliced twice");
    EXPECT_EQ(inputErrorOf([] {
                  testing::singleOpGraph(OpKind::Slice, {kGrid, int64({1}, {0}), int64({1}, {1})});
              }),
              "op 'op' (Slice): starts ('in1') must be a constant (an initializer or a Constant "
              "node), since it decides the output shape");
}

}  // namespace
}  // namespace npusim::compiler
