// Reshape, Flatten, Squeeze and Unsqueeze: the same elements under hand-worked shapes, including
// Reshape's 0 and -1 and allowzero, axes as attribute (before opset 13) or constant input, and
// the located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int64;
using testing::runOp;
using testing::runWithConstants;

const std::vector<float> kSix = {1, 2, 3, 4, 5, 6};

TEST(InterpreterReshape, CopiesZeroDimsAndInfersMinusOne) {
    const Tensor x = fp32({1, 2, 3}, kSix);
    // 0 copies dim 0 (1); -1 takes the rest: 6 / (1 * 3) = 2.
    testing::expectTensorEq(
        runWithConstants(OpKind::Reshape, {x, int64({3}, {0, -1, 3})}, {1}).at(0),
        fp32({1, 2, 3}, kSix));
    testing::expectTensorEq(runWithConstants(OpKind::Reshape, {x, int64({1}, {-1})}, {1}).at(0),
                            fp32({6}, kSix));
}

TEST(InterpreterReshape, AllowZeroKeepsAZeroDim) {
    const Tensor empty = fp32({0, 3}, {});
    testing::expectTensorEq(runWithConstants(OpKind::Reshape, {empty, int64({2}, {3, 0})}, {1},
                                             {{"allowzero", int64_t{1}}})
                                .at(0),
                            fp32({3, 0}, {}));
    // Without allowzero the 0 copies dim 1 (3): [3,3] has 9 elements, not 0.
    EXPECT_EQ(inputErrorOf([&] {
                  runWithConstants(OpKind::Reshape, {empty, int64({2}, {3, 0})}, {1});
              }),
              "op 'op' (Reshape): cannot reshape [0,3] (0 elements) to [3,3] (9 elements)");
}

TEST(InterpreterReshape, RejectsAShapeThatIsNotConstantOrDoesNotFit) {
    const Tensor x = fp32({2, 3}, kSix);
    EXPECT_EQ(inputErrorOf([&] {
                  testing::singleOpGraph(OpKind::Reshape, {x, int64({1}, {6})});
              }),
              "op 'op' (Reshape): shape ('in1') must be a constant (an initializer or a Constant "
              "node), since it decides the output shape");
    EXPECT_EQ(inputErrorOf([&] {
                  runWithConstants(OpKind::Reshape, {x, int64({2}, {4, -1})}, {1});
              }),
              "op 'op' (Reshape): cannot infer the -1 of shape [4,-1] for an input [2,3] of 6 "
              "elements");
    EXPECT_EQ(inputErrorOf([&] {
                  runWithConstants(OpKind::Reshape, {x, int64({2}, {-1, -1})}, {1});
              }),
              "op 'op' (Reshape): shape [-1,-1] has more than one -1");
}

TEST(InterpreterFlatten, JoinsTheDimsBeforeAndFromAxis) {
    const Tensor x = fp32({1, 2, 3}, kSix);
    testing::expectTensorEq(runOp(OpKind::Flatten, {x}), fp32({1, 6}, kSix));  // axis 1
    testing::expectTensorEq(runOp(OpKind::Flatten, {x}, {{"axis", int64_t{0}}}),
                            fp32({1, 6}, kSix));
    testing::expectTensorEq(runOp(OpKind::Flatten, {x}, {{"axis", int64_t{-1}}}),
                            fp32({2, 3}, kSix));
    testing::expectTensorEq(runOp(OpKind::Flatten, {x}, {{"axis", int64_t{3}}}),
                            fp32({6, 1}, kSix));
    EXPECT_EQ(inputErrorOf([&] {
                  runOp(OpKind::Flatten, {x}, {{"axis", int64_t{4}}});
              }),
              "op 'op' (Flatten): axis 4 is out of range [-3, 3] for input [1,2,3]");
}

TEST(InterpreterSqueeze, RemovesListedOrAllUnitAxes) {
    const Tensor x = fp32({1, 3, 1, 2}, kSix);
    // Opset 13: axes as input 1; before: as attribute; none: every size-1 axis.
    testing::expectTensorEq(runWithConstants(OpKind::Squeeze, {x, int64({1}, {-2})}, {1}).at(0),
                            fp32({1, 3, 2}, kSix));
    testing::expectTensorEq(runOp(OpKind::Squeeze, {x}, {{"axes", std::vector<int64_t>{0}}}),
                            fp32({3, 1, 2}, kSix));
    testing::expectTensorEq(runOp(OpKind::Squeeze, {x}), fp32({3, 2}, kSix));
    EXPECT_EQ(inputErrorOf([&] {
                  runOp(OpKind::Squeeze, {x}, {{"axes", std::vector<int64_t>{1}}});
              }),
              "op 'op' (Squeeze): cannot squeeze axis 1 of [1,3,1,2]: its size is 3, not 1");
}

TEST(InterpreterUnsqueeze, InsertsUnitAxesAtOutputPositions) {
    const Tensor x = fp32({3, 2}, kSix);
    testing::expectTensorEq(runWithConstants(OpKind::Unsqueeze, {x, int64({2}, {3, 0})}, {1}).at(0),
                            fp32({1, 3, 2, 1}, kSix));
    testing::expectTensorEq(runOp(OpKind::Unsqueeze, {x}, {{"axes", std::vector<int64_t>{-2}}}),
                            fp32({3, 1, 2}, kSix));
    EXPECT_EQ(inputErrorOf([&] {
                  runOp(OpKind::Unsqueeze, {x}, {{"axes", std::vector<int64_t>{0, -4}}});
              }),
              "op 'op' (Unsqueeze): axes [0,-4] name axis 0 twice");
    EXPECT_EQ(inputErrorOf([&] { runOp(OpKind::Unsqueeze, {x}); }),
              "op 'op' (Unsqueeze): axes are missing (an attribute before opset 13, input 1 from "
              "opset 13)");
}

}  // namespace
}  // namespace npusim::compiler
