// MatMulInteger (int8/uint8 operands, zero points per tensor, row and column) and Relu reference
// semantics against hand-computed results.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::int32;
using testing::int8;
using testing::runOp;
using testing::uint8;

TEST(InterpreterMatMulInteger, Int8WithoutZeroPoints) {
    // [1,-2; 3,4] * [5,6; -7,8] = [5+14, 6-16; 15-28, 18+32]
    testing::expectTensorEq(
        runOp(OpKind::MatMulInteger, {int8({2, 2}, {1, -2, 3, 4}), int8({2, 2}, {5, 6, -7, 8})}),
        int32({2, 2}, {19, -10, -13, 50}));
}

TEST(InterpreterMatMulInteger, PerTensorZeroPointsOnMixedSignedness) {
    // A' = A - 10 = [0,1,2; 3,4,5]; B' = B - 1 = [0; 1; 2] -> [0+1+4; 0+4+10]
    const Tensor a = uint8({2, 3}, {10, 11, 12, 13, 14, 15});
    const Tensor b = int8({3, 1}, {1, 2, 3});
    testing::expectTensorEq(runOp(OpKind::MatMulInteger, {a, b, uint8({}, {10}), int8({1}, {1})}),
                            int32({2, 1}, {5, 14}));
}

TEST(InterpreterMatMulInteger, PerRowAndPerColumnZeroPoints) {
    // A' = [5-1, 5-1; 7-2, 7-2] = [4,4; 5,5]
    // B' = [1-0, 2-1, 3-2; 4-0, 6-1, 8-2] = [1,1,1; 4,5,6]
    const Tensor a = uint8({2, 2}, {5, 5, 7, 7});
    const Tensor b = uint8({2, 3}, {1, 2, 3, 4, 6, 8});
    testing::expectTensorEq(
        runOp(OpKind::MatMulInteger, {a, b, uint8({2}, {1, 2}), uint8({3}, {0, 1, 2})}),
        int32({2, 3}, {20, 24, 28, 25, 30, 35}));
}

TEST(InterpreterMatMulInteger, OnlyBZeroPointWithAZeroPointAbsent) {
    // [1,2] * ([3; 4] - 2) = 1*1 + 2*2
    testing::expectTensorEq(
        runOp(OpKind::MatMulInteger,
              {int8({1, 2}, {1, 2}), uint8({2, 1}, {3, 4}), std::nullopt, uint8({}, {2})}),
        int32({1, 1}, {5}));
}

TEST(InterpreterMatMulInteger, BroadcastsTheBatchLikeMatMul) {
    testing::expectTensorEq(
        runOp(OpKind::MatMulInteger, {int8({2, 1, 2}, {1, 2, 3, 4}), int8({2, 1}, {1, 1})}),
        int32({2, 1, 1}, {3, 7}));
}

TEST(InterpreterMatMulInteger, RejectsBadTypesAndZeroPointShapes) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::MatMulInteger,
                                         {Tensor::zeros(DType::Int8, {2, 2}),
                                          Tensor::zeros(DType::Int8, {2, 2}), uint8({}, {0})});
              }),
              "op 'op' (MatMulInteger): a_zero_point is uint8 but A is int8; they must have the "
              "same dtype");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(
                      OpKind::MatMulInteger,
                      {Tensor::zeros(DType::Int8, {2, 2}), Tensor::zeros(DType::Int8, {2, 3}),
                       std::nullopt, Tensor::zeros(DType::Int8, {2})});
              }),
              "op 'op' (MatMulInteger): b_zero_point must have shape [], [1] or [N]=[3], got [2]");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(
                      OpKind::MatMulInteger,
                      {Tensor::zeros(DType::Fp32, {2, 2}), Tensor::zeros(DType::Int8, {2, 2})});
              }),
              "op 'op' (MatMulInteger): A is fp32; MatMulInteger supports int8, uint8");
}

TEST(InterpreterRelu, ClampsNegativeValuesForEachSupportedDType) {
    testing::expectTensorEq(runOp(OpKind::Relu, {testing::fp32({2, 2}, {-1, 0, 2.5f, -0.5f})}),
                            testing::fp32({2, 2}, {0, 0, 2.5f, 0}));
    testing::expectTensorEq(runOp(OpKind::Relu, {int32({2}, {-3, 4})}), int32({2}, {0, 4}));
    testing::expectTensorEq(runOp(OpKind::Relu, {int8({3}, {-128, 127, 0})}),
                            int8({3}, {0, 127, 0}));
}

TEST(InterpreterRelu, RejectsUnsupportedDType) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::Relu, {uint8({2}, {1, 2})});
              }),
              "op 'op' (Relu): X is uint8; Relu supports fp32, int32, int8");
}

}  // namespace
}  // namespace npusim::compiler
