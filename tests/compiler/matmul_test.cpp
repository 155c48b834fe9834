// MatMul reference semantics against hand-computed products: 2-D, batched broadcasting, 1-D
// operands, int32 wrap-around, and the located type errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::int32;
using testing::runOp;

TEST(InterpreterMatMul, Fp32TwoByThreeTimesThreeByTwo) {
    const Tensor a = fp32({2, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor b = fp32({3, 2}, {7, 8, 9, 10, 11, 12});
    // [1*7+2*9+3*11, 1*8+2*10+3*12; 4*7+5*9+6*11, 4*8+5*10+6*12]
    testing::expectTensorEq(runOp(OpKind::MatMul, {a, b}), fp32({2, 2}, {58, 64, 139, 154}));
}

TEST(InterpreterMatMul, BroadcastsAMatrixAcrossTheBatch) {
    const Tensor a = fp32({2, 2, 2}, {1, 0, 0, 1, /**/ 2, 0, 0, 2});  // I and 2I
    const Tensor b = fp32({2, 2}, {1, 2, 3, 4});
    testing::expectTensorEq(runOp(OpKind::MatMul, {a, b}),
                            fp32({2, 2, 2}, {1, 2, 3, 4, /**/ 2, 4, 6, 8}));
}

TEST(InterpreterMatMul, BroadcastsBatchDimsOfBothOperands) {
    // A: batch [2,1] of 1x2 rows; B: batch [3] of 2x1 columns -> batch [2,3] of 1x1.
    const Tensor a = fp32({2, 1, 1, 2}, {1, 2, /**/ 3, 4});
    const Tensor b = fp32({3, 2, 1}, {1, 1, /**/ 1, 0, /**/ 0, 1});
    // out[i][j] = A[i] . B[j]: [1+2, 1, 2; 3+4, 3, 4]
    testing::expectTensorEq(runOp(OpKind::MatMul, {a, b}), fp32({2, 3, 1, 1}, {3, 1, 2, 7, 3, 4}));
}

TEST(InterpreterMatMul, PromotesOneDimensionalOperands) {
    const Tensor row = fp32({3}, {1, 2, 3});
    const Tensor matrix = fp32({3, 2}, {1, 4, 2, 5, 3, 6});
    // [3] x [3,2] -> [2]: the promoted leading 1 is removed again.
    testing::expectTensorEq(runOp(OpKind::MatMul, {row, matrix}), fp32({2}, {14, 32}));
    // [2,3] x [3] -> [2]: the promoted trailing 1 is removed again.
    testing::expectTensorEq(runOp(OpKind::MatMul, {fp32({2, 3}, {1, 2, 3, 4, 5, 6}), row}),
                            fp32({2}, {14, 32}));
    // [3] x [3] -> a scalar.
    testing::expectTensorEq(runOp(OpKind::MatMul, {row, row}), fp32({}, {14}));
    // [3] x [2,3,2] -> [2,2]: the vector is broadcast over the batch.
    const Tensor batched = fp32({2, 3, 2}, {1, 4, 2, 5, 3, 6, /**/ 1, 0, 0, 1, 0, 0});
    testing::expectTensorEq(runOp(OpKind::MatMul, {row, batched}), fp32({2, 2}, {14, 32, 1, 2}));
}

TEST(InterpreterMatMul, Int32AccumulatesAndWrapsModulo2To32) {
    testing::expectTensorEq(runOp(OpKind::MatMul, {int32({1, 2}, {1, -2}), int32({2, 1}, {3, 4})}),
                            int32({1, 1}, {-5}));
    // 2147483647 * 2 = 2^32 - 2, which wraps to -2.
    testing::expectTensorEq(
        runOp(OpKind::MatMul, {int32({1, 1}, {2147483647}), int32({1, 1}, {2})}),
        int32({1, 1}, {-2}));
}

TEST(InterpreterMatMul, RejectsMismatchedShapesAndTypesWithLocatedMessages) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::MatMul, {Tensor::zeros(DType::Fp32, {3, 4}),
                                                          Tensor::zeros(DType::Fp32, {5, 3})});
              }),
              "op 'op' (MatMul): inner dimensions differ: A is [3,4] but B is [5,3]");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::MatMul, {Tensor::zeros(DType::Fp32, {2, 3, 4}),
                                                          Tensor::zeros(DType::Fp32, {3, 4, 5})});
              }),
              "op 'op' (MatMul): batch dimensions do not broadcast: A is [2,3,4] and B is "
              "[3,4,5]");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::MatMul, {Tensor::zeros(DType::Int8, {2, 2}),
                                                          Tensor::zeros(DType::Int8, {2, 2})});
              }),
              "op 'op' (MatMul): A is int8; MatMul supports fp32, fp16, bf16, int32");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::MatMul, {Tensor::zeros(DType::Fp32, {2, 2}),
                                                          Tensor::zeros(DType::Int32, {2, 2})});
              }),
              "op 'op' (MatMul): A is fp32 but B is int32; both must have the same dtype");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::MatMul, {Tensor::zeros(DType::Fp32, {}),
                                                          Tensor::zeros(DType::Fp32, {2})});
              }),
              "op 'op' (MatMul): operands must have rank >= 1, but A is [] and B is [2]");
}

}  // namespace
}  // namespace npusim::compiler
