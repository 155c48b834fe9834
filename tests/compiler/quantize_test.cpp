// Quantization reference semantics against hand-computed results: QuantizeLinear (round half to
// even, saturation, per-axis scales), DequantizeLinear, QLinearMatMul and DynamicQuantizeLinear,
// and their located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::int32;
using testing::int8;
using testing::runOp;
using testing::uint8;

TEST(InterpreterQuantizeLinear, RoundsHalfToEvenAndSaturates) {
    const Tensor x = fp32({6}, {0, 1.5F, 2.5F, -1.5F, 300, -300});
    testing::expectTensorEq(runOp(OpKind::QuantizeLinear, {x, fp32({}, {1}), int8({}, {0})}),
                            int8({6}, {0, 2, 2, -2, 127, -128}));
    testing::expectTensorEq(runOp(OpKind::QuantizeLinear, {x, fp32({}, {1}), uint8({}, {10})}),
                            uint8({6}, {10, 12, 12, 8, 255, 0}));
    // Without a zero point the output is uint8 around 0.
    testing::expectTensorEq(runOp(OpKind::QuantizeLinear, {fp32({2}, {3, -3}), fp32({}, {2})}),
                            uint8({2}, {2, 0}));
}

TEST(InterpreterQuantizeLinear, PerAxisScalesAndZeroPoints) {
    // Axis 1 (the default): column 0 uses scale 1 and zero point 0, column 1 scale 2 and 1.
    testing::expectTensorEq(runOp(OpKind::QuantizeLinear, {fp32({2, 2}, {1, 2, 3, 4}),
                                                           fp32({2}, {1, 2}), uint8({2}, {0, 1})}),
                            uint8({2, 2}, {1, 2, 3, 3}));
}

TEST(InterpreterQuantizeLinear, RejectsAScaleThatFitsNeitherTensorNorAxis) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(
                      OpKind::QuantizeLinear,
                      {Tensor::zeros(DType::Fp32, {2, 3}), Tensor::zeros(DType::Fp32, {2})});
              }),
              "op 'op' (QuantizeLinear): y_scale must be a scalar or [1], or [3] for axis 1 of "
              "x, got [2]");
}

TEST(InterpreterDequantizeLinear, SubtractsTheZeroPointAndScales) {
    testing::expectTensorEq(runOp(OpKind::DequantizeLinear,
                                  {int8({3}, {-128, 0, 127}), fp32({}, {0.5F}), int8({}, {-1})}),
                            fp32({3}, {-63.5F, 0.5F, 64}));
    // Per axis 0, and int32 without a zero point.
    testing::expectTensorEq(
        runOp(OpKind::DequantizeLinear, {int32({2, 1}, {100000, -7}), fp32({2}, {0.5F, 2})},
              {{"axis", int64_t{0}}}),
        fp32({2, 1}, {50000, -14}));
}

TEST(InterpreterDequantizeLinear, RejectsAnInt32ZeroPointOtherThanZero) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  runOp(OpKind::DequantizeLinear, {int32({1}, {5}), fp32({}, {1}), int32({}, {3})});
              }),
              "op 'op' (DequantizeLinear): an int32 x is dequantized without a zero point, but "
              "x_zero_point is 3");
}

TEST(InterpreterQLinearMatMul, RequantizesTheIntegerProduct) {
    // a - 128 = [3, -1]; b columns [3, 2] and [1, 2]: products 7 and 1. Rescaled by
    // 0.5 * 0.25 / 0.25 = 0.5 to 3.5 -> 4 and 0.5 -> 0 (half to even), plus y_zero_point 10.
    const Tensor y =
        runOp(OpKind::QLinearMatMul, {uint8({1, 2}, {131, 127}), fp32({}, {0.5F}), uint8({}, {128}),
                                      int8({2, 2}, {3, 1, 2, 2}), fp32({}, {0.25F}), int8({}, {0}),
                                      fp32({}, {0.25F}), uint8({}, {10})});
    testing::expectTensorEq(y, uint8({1, 2}, {14, 10}));
}

TEST(InterpreterQLinearMatMul, RejectsAPerColumnScaleOfTheWrongLength) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(
                      OpKind::QLinearMatMul,
                      {Tensor::zeros(DType::UInt8, {1, 2}), Tensor::zeros(DType::Fp32, {}),
                       Tensor::zeros(DType::UInt8, {}), Tensor::zeros(DType::UInt8, {2, 2}),
                       Tensor::zeros(DType::Fp32, {3}), Tensor::zeros(DType::UInt8, {}),
                       Tensor::zeros(DType::Fp32, {}), Tensor::zeros(DType::UInt8, {})});
              }),
              "op 'op' (QLinearMatMul): b_scale must be a scalar or [1], or [2] for the columns "
              "of b (N), got [3]");
}

TEST(InterpreterDynamicQuantizeLinear, MapsTheRangeWithZeroOntoUint8) {
    // Range [-1, 2]: scale 3 / 255, zero point 1 / scale = 85, y = x / scale + 85.
    const std::vector<Tensor> outputs =
        testing::runOpOutputs(OpKind::DynamicQuantizeLinear, {fp32({4}, {-1, 0, 1, 2})}, {}, 3);
    testing::expectTensorEq(outputs[0], uint8({4}, {0, 85, 170, 255}));
    testing::expectTensorEq(outputs[1], fp32({}, {3.0F / 255.0F}));
    testing::expectTensorEq(outputs[2], uint8({}, {85}));
    // All positive: the range widens down to 0, so the zero point is 0.
    testing::expectTensorEq(
        testing::runOpOutputs(OpKind::DynamicQuantizeLinear, {fp32({2}, {2.55F, 5.1F})}, {}, 3)[2],
        uint8({}, {0}));
}

TEST(InterpreterDynamicQuantizeLinear, RejectsIntegerInput) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::multiOutputOpGraph(OpKind::DynamicQuantizeLinear,
                                              {Tensor::zeros(DType::Int8, {2})}, {}, 3);
              }),
              "op 'op' (DynamicQuantizeLinear): x is int8; DynamicQuantizeLinear supports fp32");
}

}  // namespace
}  // namespace npusim::compiler
