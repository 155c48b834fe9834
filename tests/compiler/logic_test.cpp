// Comparisons, bool logic and Where against hand-evaluated broadcasts, and the located dtype
// errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::boolean;
using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::runOp;

TEST(InterpreterCompare, ComparesBroadcastOperands) {
    testing::expectTensorEq(runOp(OpKind::Equal, {int32({2, 2}, {1, 2, 3, 4}), int32({2}, {1, 4})}),
                            boolean({2, 2}, {1, 0, 0, 1}));
    const Tensor a = fp32({3}, {1, 2, 3});
    const Tensor two = fp32({}, {2});
    testing::expectTensorEq(runOp(OpKind::Less, {a, two}), boolean({3}, {1, 0, 0}));
    testing::expectTensorEq(runOp(OpKind::Greater, {a, two}), boolean({3}, {0, 0, 1}));
    testing::expectTensorEq(runOp(OpKind::LessOrEqual, {a, two}), boolean({3}, {1, 1, 0}));
    testing::expectTensorEq(runOp(OpKind::GreaterOrEqual, {a, two}), boolean({3}, {0, 1, 1}));
    testing::expectTensorEq(runOp(OpKind::Equal, {boolean({2}, {1, 0}), boolean({2}, {1, 1})}),
                            boolean({2}, {1, 0}));
}

TEST(InterpreterCompare, RejectsMixedOrUnorderedDTypes) {
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::Equal, {fp32({1}, {1}), int32({1}, {1})});
              }),
              "op 'op' (Equal): A is fp32 but B is int32; both must have the same dtype");
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::Less, {boolean({1}, {1}), boolean({1}, {0})});
              }),
              "op 'op' (Less): A is bool; Less supports fp32, fp16, bf16, int8, uint8, int32, "
              "int64");
}

TEST(InterpreterLogic, CombinesBools) {
    const Tensor a = boolean({2, 2}, {0, 0, 1, 1});
    const Tensor b = boolean({2}, {0, 1});
    testing::expectTensorEq(runOp(OpKind::And, {a, b}), boolean({2, 2}, {0, 0, 0, 1}));
    testing::expectTensorEq(runOp(OpKind::Or, {a, b}), boolean({2, 2}, {0, 1, 1, 1}));
    testing::expectTensorEq(runOp(OpKind::Xor, {a, b}), boolean({2, 2}, {0, 1, 1, 0}));
    testing::expectTensorEq(runOp(OpKind::Not, {b}), boolean({2}, {1, 0}));
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::And, {fp32({1}, {1}), fp32({1}, {1})});
              }),
              "op 'op' (And): A is fp32; And supports bool");
    EXPECT_EQ(inputErrorOf([] { runOp(OpKind::Not, {int32({1}, {1})}); }),
              "op 'op' (Not): X is int32; Not supports bool");
}

TEST(InterpreterWhere, ChoosesBetweenBroadcastOperands) {
    testing::expectTensorEq(
        runOp(OpKind::Where, {boolean({2}, {1, 0}), fp32({2, 2}, {1, 2, 3, 4}), fp32({}, {9})}),
        fp32({2, 2}, {1, 9, 3, 9}));
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::Where, {fp32({1}, {1}), fp32({1}, {1}), fp32({1}, {2})});
              }),
              "op 'op' (Where): condition is fp32; Where supports bool");
}

}  // namespace
}  // namespace npusim::compiler
