// Gemm reference semantics: every allowed shape of C, transposed operands, alpha and beta, and
// the located shape errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::runOp;

// A * B = [1,2,3; 4,5,6] * [1,0; 0,1; 1,1] = [4,5; 10,11]
Tensor matrixA() {
    return fp32({2, 3}, {1, 2, 3, 4, 5, 6});
}
Tensor matrixB() {
    return fp32({3, 2}, {1, 0, 0, 1, 1, 1});
}

TEST(InterpreterGemm, WithoutC) {
    testing::expectTensorEq(runOp(OpKind::Gemm, {matrixA(), matrixB()}),
                            fp32({2, 2}, {4, 5, 10, 11}));
    testing::expectTensorEq(runOp(OpKind::Gemm, {matrixA(), matrixB(), std::nullopt}),
                            fp32({2, 2}, {4, 5, 10, 11}));
}

TEST(InterpreterGemm, BroadcastsEveryAllowedShapeOfC) {
    struct Case {
        Tensor c;
        std::vector<float> expected;
    };
    const Case cases[] = {
        {fp32({}, {10}), {14, 15, 20, 21}},           {fp32({1}, {10}), {14, 15, 20, 21}},
        {fp32({2}, {10, 20}), {14, 25, 20, 31}},       // [N]: one value per column
        {fp32({1, 2}, {10, 20}), {14, 25, 20, 31}},    // [1,N]
        {fp32({2, 1}, {10, 20}), {14, 15, 30, 31}},    // [M,1]: one value per row
        {fp32({2, 2}, {1, 2, 3, 4}), {5, 7, 13, 15}},  // [M,N]
    };
    for (const Case& c : cases) {
        SCOPED_TRACE("C is " + shapeString(c.c.shape));
        testing::expectTensorEq(runOp(OpKind::Gemm, {matrixA(), matrixB(), c.c}),
                                fp32({2, 2}, c.expected));
    }
}

TEST(InterpreterGemm, TransposesAAndB) {
    const Tensor aT = fp32({3, 2}, {1, 4, 2, 5, 3, 6});
    const Tensor bT = fp32({2, 3}, {1, 0, 1, 0, 1, 1});
    const Tensor expected = fp32({2, 2}, {4, 5, 10, 11});
    testing::expectTensorEq(runOp(OpKind::Gemm, {aT, matrixB()}, {{"transA", int64_t{1}}}),
                            expected);
    testing::expectTensorEq(runOp(OpKind::Gemm, {matrixA(), bT}, {{"transB", int64_t{1}}}),
                            expected);
    testing::expectTensorEq(
        runOp(OpKind::Gemm, {aT, bT}, {{"transA", int64_t{1}}, {"transB", int64_t{1}}}), expected);
}

TEST(InterpreterGemm, ScalesByAlphaAndBeta) {
    // 0.5 * [4,5; 10,11] + 2 * [1,2; 3,4] = [4,6.5; 11,13.5]
    const Tensor c = fp32({2, 2}, {1, 2, 3, 4});
    testing::expectTensorEq(
        runOp(OpKind::Gemm, {matrixA(), matrixB(), c}, {{"alpha", 0.5}, {"beta", 2.0}}),
        fp32({2, 2}, {4, 6.5f, 11, 13.5f}));
    // An int attribute reads as a float too: alpha = 2.
    testing::expectTensorEq(runOp(OpKind::Gemm, {matrixA(), matrixB()}, {{"alpha", int64_t{2}}}),
                            fp32({2, 2}, {8, 10, 20, 22}));
}

TEST(InterpreterGemm, RejectsMismatchedShapesWithLocatedMessages) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(
                      OpKind::Gemm,
                      {Tensor::zeros(DType::Fp32, {4, 3}), Tensor::zeros(DType::Fp32, {5, 4})},
                      {{"transA", int64_t{1}}});
              }),
              "op 'op' (Gemm): inner dimensions differ: A is [4,3] (transA=1 -> [3,4]) but B is "
              "[5,4]");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::Gemm,
                                         {matrixA(), matrixB(), Tensor::zeros(DType::Fp32, {3})});
              }),
              "op 'op' (Gemm): C is [3], which does not broadcast to the output [2,2] (allowed: "
              "[], [1], [N], [1,N], [M,1], [M,N])");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::Gemm,
                                         {Tensor::zeros(DType::Fp32, {2, 2, 3}), matrixB()});
              }),
              "op 'op' (Gemm): A must be 2-D, got [2,2,3]");
    EXPECT_EQ(
        testing::inputErrorOf([] {
            testing::runOp(OpKind::Gemm, {matrixA(), matrixB()}, {{"alpha", std::string("x")}});
        }),
        "op 'op' (Gemm): attribute 'alpha' must be a float, but it is a string");
    EXPECT_EQ(testing::inputErrorOf([] { testing::singleOpGraph(OpKind::Gemm, {matrixA()}); }),
              "op 'op' (Gemm): expects 2 to 3 inputs, got 1");
}

}  // namespace
}  // namespace npusim::compiler
