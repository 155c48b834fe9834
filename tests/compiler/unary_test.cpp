// The elementwise unary ops (Sqrt, Exp, Log, Neg, Abs, Reciprocal, Sigmoid, Tanh, Erf, Elu, Selu,
// Softplus, ThresholdedRelu) against hand-computed values, their attribute defaults, integer
// Neg/Abs wrap-around, fp16 rounding, and the located dtype errors.
#include <gtest/gtest.h>

#include <cmath>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int8;
using testing::runOp;
using testing::singleOpGraph;

TEST(InterpreterUnary, ExactResults) {
    testing::expectTensorEq(runOp(OpKind::Sqrt, {fp32({3}, {4, 0.25f, 0})}),
                            fp32({3}, {2, 0.5f, 0}));
    testing::expectTensorEq(runOp(OpKind::Exp, {fp32({1}, {0})}), fp32({1}, {1}));
    testing::expectTensorEq(runOp(OpKind::Log, {fp32({2}, {1, 0})}), fp32({2}, {0, -INFINITY}));
    testing::expectTensorEq(runOp(OpKind::Reciprocal, {fp32({3}, {4, -0.5f, 0})}),
                            fp32({3}, {0.25f, -2, INFINITY}));
    testing::expectTensorEq(runOp(OpKind::Sigmoid, {fp32({1}, {0})}), fp32({1}, {0.5f}));
    testing::expectTensorEq(runOp(OpKind::Tanh, {fp32({2}, {0, 100})}), fp32({2}, {0, 1}));
    testing::expectTensorEq(runOp(OpKind::Erf, {fp32({2}, {0, 10})}), fp32({2}, {0, 1}));
}

TEST(InterpreterUnary, TranscendentalValues) {
    // e^1, ln 10, 1/(1+e^-2), tanh(0.5), erf(1)
    testing::expectTensorNear(runOp(OpKind::Exp, {fp32({1}, {1})}), fp32({1}, {2.7182818f}));
    testing::expectTensorNear(runOp(OpKind::Log, {fp32({1}, {10})}), fp32({1}, {2.3025851f}));
    testing::expectTensorNear(runOp(OpKind::Sigmoid, {fp32({1}, {2})}), fp32({1}, {0.8807971f}));
    testing::expectTensorNear(runOp(OpKind::Tanh, {fp32({1}, {0.5f})}), fp32({1}, {0.4621172f}));
    testing::expectTensorNear(runOp(OpKind::Erf, {fp32({1}, {1})}), fp32({1}, {0.8427008f}));
}

TEST(InterpreterUnary, NegAndAbsOnFloatsAndWrappingIntegers) {
    testing::expectTensorEq(runOp(OpKind::Neg, {fp32({2}, {1.5f, -2})}), fp32({2}, {-1.5f, 2}));
    // -(-128) wraps to -128 in int8, as it does in two's complement hardware.
    testing::expectTensorEq(runOp(OpKind::Neg, {int8({3}, {5, -128, 0})}),
                            int8({3}, {-5, -128, 0}));
    testing::expectTensorEq(runOp(OpKind::Abs, {fp32({2}, {-3, 2})}), fp32({2}, {3, 2}));
    testing::expectTensorEq(runOp(OpKind::Abs, {int32({2}, {-7, 7})}), int32({2}, {7, 7}));
    testing::expectTensorEq(runOp(OpKind::Abs, {testing::uint8({1}, {200})}),
                            testing::uint8({1}, {200}));
}

TEST(InterpreterUnary, EluAndSeluWithDefaultAndGivenAlpha) {
    // Elu: x for x >= 0, alpha (e^x - 1) below: 1 (e^-1 - 1) = -0.6321206
    testing::expectTensorNear(runOp(OpKind::Elu, {fp32({2}, {2, -1})}),
                              fp32({2}, {2, -0.6321206f}));
    testing::expectTensorNear(runOp(OpKind::Elu, {fp32({1}, {-1})}, {{"alpha", 2.0}}),
                              fp32({1}, {-1.2642411f}));
    // Selu: gamma x = 1.0507010 * 2; gamma alpha (e^-1 - 1) = 1.0507010 * 1.6732632 * -0.6321206
    testing::expectTensorNear(runOp(OpKind::Selu, {fp32({2}, {2, -1})}),
                              fp32({2}, {2.1014020f, -1.1113307f}));
    testing::expectTensorNear(
        runOp(OpKind::Selu, {fp32({2}, {1, -1})}, {{"alpha", 2.0}, {"gamma", 3.0}}),
        fp32({2}, {3, -3.7927232f}));
}

TEST(InterpreterUnary, SoftplusDoesNotOverflowAndThresholdedReluCuts) {
    // ln(1 + e^0) = ln 2; ln(1 + e^1000) = 1000 without overflowing e^1000.
    testing::expectTensorNear(runOp(OpKind::Softplus, {fp32({3}, {0, 1000, -1000})}),
                              fp32({3}, {0.6931472f, 1000, 0}));
    // Default alpha 1: only x > 1 passes.
    testing::expectTensorEq(runOp(OpKind::ThresholdedRelu, {fp32({3}, {1, 1.5f, -2})}),
                            fp32({3}, {0, 1.5f, 0}));
    testing::expectTensorEq(
        runOp(OpKind::ThresholdedRelu, {fp32({3}, {1, 1.5f, 3})}, {{"alpha", 2.0}}),
        fp32({3}, {0, 0, 3}));
}

TEST(InterpreterUnary, Fp16ResultsAreRoundedToFp16) {
    // sqrt(2) = 1.41421356; the nearest fp16 is 1.4140625 (0x3DA8).
    const Tensor two = testing::tensorOf<uint16_t>(DType::Fp16, {1}, {0x4000});
    testing::expectTensorEq(runOp(OpKind::Sqrt, {two}),
                            testing::tensorOf<uint16_t>(DType::Fp16, {1}, {0x3DA8}));
}

TEST(InterpreterUnary, RejectsUnsupportedDTypesWithLocatedMessages) {
    const Tensor integers = int32({1}, {1});
    for (OpKind kind :
         {OpKind::Sqrt, OpKind::Exp, OpKind::Log, OpKind::Reciprocal, OpKind::Sigmoid, OpKind::Tanh,
          OpKind::Erf, OpKind::Elu, OpKind::Selu, OpKind::Softplus, OpKind::ThresholdedRelu}) {
        const std::string message = inputErrorOf([&] { singleOpGraph(kind, {integers}); });
        EXPECT_NE(message.find("): X is int32; "), std::string::npos) << message;
        EXPECT_NE(message.find(" supports fp32, fp16, bf16"), std::string::npos) << message;
    }
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::Sqrt, {integers}); }),
              "op 'op' (Sqrt): X is int32; Sqrt supports fp32, fp16, bf16");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::Neg, {testing::uint8({1}, {1})}); }),
              "op 'op' (Neg): X is uint8; Neg supports fp32, fp16, bf16, int8, int32, int64");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::Abs, {testing::boolean({1}, {1})}); }),
              "op 'op' (Abs): X is bool; Abs supports fp32, fp16, bf16, int8, uint8, int32, int64");
}

}  // namespace
}  // namespace npusim::compiler
