// Convolution reference semantics against hand-computed results: Conv (padding, strides,
// dilations, auto_pad, groups, 1-D to 3-D), ConvTranspose (strides, output_padding,
// output_shape, groups), ConvInteger and QLinearConv, and their located shape and type errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::int32;
using testing::int8;
using testing::runOp;
using testing::uint8;

using Ints = std::vector<int64_t>;

TEST(InterpreterConv, TwoByTwoKernelWithBias) {
    const Tensor x = fp32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    const Tensor w = fp32({1, 1, 2, 2}, {1, 0, 0, 1});  // x[i][j] + x[i+1][j+1]
    testing::expectTensorEq(
        runOp(OpKind::Conv, {x, w, fp32({1}, {0.5F})}),
        fp32({1, 1, 2, 2}, {1 + 5 + 0.5F, 2 + 6 + 0.5F, 4 + 8 + 0.5F, 5 + 9 + 0.5F}));
}

TEST(InterpreterConv, StridesAndPaddingSkipThePaddedTaps) {
    const Tensor x = fp32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    const Tensor ones = fp32({1, 1, 3, 3}, std::vector<float>(9, 1));
    // Output (3 + 1 + 1 - 3) / 2 + 1 = 2 per dim; each window sums the 2x2 corner it covers.
    testing::expectTensorEq(
        runOp(OpKind::Conv, {x, ones}, {{"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}),
        fp32({1, 1, 2, 2}, {1 + 2 + 4 + 5, 2 + 3 + 5 + 6, 4 + 5 + 7 + 8, 5 + 6 + 8 + 9}));
}

TEST(InterpreterConv, DepthwiseGroupsReadTheirOwnChannel) {
    const Tensor x = fp32({1, 2, 2, 2}, {1, 2, 3, 4, /**/ 10, 20, 30, 40});
    const Tensor w = fp32({2, 1, 1, 1}, {2, -1});
    testing::expectTensorEq(runOp(OpKind::Conv, {x, w}, {{"group", int64_t{2}}}),
                            fp32({1, 2, 2, 2}, {2, 4, 6, 8, /**/ -10, -20, -30, -40}));
}

TEST(InterpreterConv, DilatedOneDimensionalKernel) {
    const Tensor x = fp32({1, 1, 5}, {1, 2, 3, 4, 5});
    // Taps 0 and 2 of each window: x0+x2, x1+x3, x2+x4.
    testing::expectTensorEq(
        runOp(OpKind::Conv, {x, fp32({1, 1, 2}, {1, 1})}, {{"dilations", Ints{2}}}),
        fp32({1, 1, 3}, {4, 6, 8}));
}

TEST(InterpreterConv, SameUpperPadsTheEndAndSameLowerTheBeginning) {
    const Tensor x = fp32({1, 1, 3}, {1, 2, 3});
    const Tensor w = fp32({1, 1, 2}, {1, 10});
    testing::expectTensorEq(runOp(OpKind::Conv, {x, w}, {{"auto_pad", std::string("SAME_UPPER")}}),
                            fp32({1, 1, 3}, {1 + 20, 2 + 30, 3}));
    testing::expectTensorEq(runOp(OpKind::Conv, {x, w}, {{"auto_pad", std::string("SAME_LOWER")}}),
                            fp32({1, 1, 3}, {10, 1 + 20, 2 + 30}));
}

TEST(InterpreterConv, ThreeSpatialDims) {
    const Tensor x = fp32({1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    testing::expectTensorEq(
        runOp(OpKind::Conv, {x, fp32({1, 1, 2, 2, 2}, std::vector<float>(8, 1))}),
        fp32({1, 1, 1, 1, 1}, {36}));
}

TEST(InterpreterConv, RejectsChannelMismatchAndKernelShapeWithLocatedMessages) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::Conv, {Tensor::zeros(DType::Fp32, {1, 3, 5, 5}),
                                                        Tensor::zeros(DType::Fp32, {2, 2, 3, 3})});
              }),
              "op 'op' (Conv): X is [1,3,5,5] and W is [2,2,3,3] with group 1: W's dim 1 times "
              "group must equal X's channels, and group must divide W's dim 0");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::Conv,
                                         {Tensor::zeros(DType::Fp32, {1, 1, 5, 5}),
                                          Tensor::zeros(DType::Fp32, {1, 1, 3, 3})},
                                         {{"kernel_shape", Ints{2, 2}}});
              }),
              "op 'op' (Conv): kernel_shape [2,2] differs from W's spatial dims [3,3]");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::Conv, {Tensor::zeros(DType::Fp32, {1, 1, 2, 2}),
                                                        Tensor::zeros(DType::Fp32, {1, 1, 3, 3})});
              }),
              "op 'op' (Conv): the window (kernel [3,3], dilations [1,1]) is larger than the "
              "padded input [2,2] in spatial dim 0");
}

TEST(InterpreterConvTranspose, ScattersEachInputThroughTheKernel) {
    const Tensor w = fp32({1, 1, 2}, {1, 10});
    // y[i + k] += x[i] * w[k].
    testing::expectTensorEq(runOp(OpKind::ConvTranspose, {fp32({1, 1, 3}, {1, 2, 3}), w}),
                            fp32({1, 1, 4}, {1, 10 + 2, 20 + 3, 30}));
    // Stride 2 spreads the inputs apart; output_padding adds an untouched element at the end.
    testing::expectTensorEq(runOp(OpKind::ConvTranspose, {fp32({1, 1, 2}, {1, 2}), w},
                                  {{"strides", Ints{2}}, {"output_padding", Ints{1}}}),
                            fp32({1, 1, 5}, {1, 10, 2, 20, 0}));
}

TEST(InterpreterConvTranspose, OutputShapeDerivesThePads) {
    const Tensor x = fp32({1, 1, 2}, {1, 2});
    const Tensor w = fp32({1, 1, 2}, {1, 10});
    // The full scatter is [1, 10, 2, 20]; output_shape 3 leaves one padding element, at the
    // beginning by default and at the end for SAME_UPPER.
    testing::expectTensorEq(
        runOp(OpKind::ConvTranspose, {x, w}, {{"strides", Ints{2}}, {"output_shape", Ints{3}}}),
        fp32({1, 1, 3}, {10, 2, 20}));
    testing::expectTensorEq(runOp(OpKind::ConvTranspose, {x, w},
                                  {{"strides", Ints{2}},
                                   {"output_shape", Ints{3}},
                                   {"auto_pad", std::string("SAME_UPPER")}}),
                            fp32({1, 1, 3}, {1, 10, 2}));
}

TEST(InterpreterConvTranspose, GroupsAndBias) {
    const Tensor x = fp32({1, 2, 1}, {1, 2});
    const Tensor w = fp32({2, 1, 1}, {3, 4});
    testing::expectTensorEq(
        runOp(OpKind::ConvTranspose, {x, w, fp32({2}, {0.5F, 1})}, {{"group", int64_t{2}}}),
        fp32({1, 2, 1}, {1 * 3 + 0.5F, 2 * 4 + 1}));
}

TEST(InterpreterConvTranspose, RejectsAWeightForOtherChannels) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::ConvTranspose,
                                         {Tensor::zeros(DType::Fp32, {1, 2, 3}),
                                          Tensor::zeros(DType::Fp32, {3, 1, 2})});
              }),
              "op 'op' (ConvTranspose): X is [1,2,3] and W is [3,1,2] with group 1: W's dim 0 "
              "must equal X's channels, and group must divide them");
}

TEST(InterpreterConvInteger, RemovesZeroPointsPerTensorAndPerOutputChannel) {
    // w - w_zero_point = [4, -4] per output channel; no x zero point.
    const Tensor x = int8({1, 1, 1, 2}, {10, -10});
    const Tensor w = int8({2, 1, 1, 1}, {5, -5});
    testing::expectTensorEq(runOp(OpKind::ConvInteger, {x, w, std::nullopt, int8({2}, {1, -1})}),
                            int32({1, 2, 1, 2}, {40, -40, -40, 40}));
    // x - 1 = [1, 2, 3, 4] times (3 - 1); the padding is zero after the zero point is removed.
    testing::expectTensorEq(runOp(OpKind::ConvInteger,
                                  {uint8({1, 1, 2, 2}, {2, 3, 4, 5}), uint8({1, 1, 1, 1}, {3}),
                                   uint8({}, {1}), uint8({}, {1})},
                                  {{"pads", Ints{0, 1, 0, 0}}}),
                            int32({1, 1, 2, 3}, {0, 2, 4, 0, 6, 8}));
}

TEST(InterpreterConvInteger, RejectsAZeroPointOfAnotherDtype) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(
                      OpKind::ConvInteger,
                      {Tensor::zeros(DType::UInt8, {1, 1, 2, 2}),
                       Tensor::zeros(DType::UInt8, {1, 1, 1, 1}), Tensor::zeros(DType::Int8, {})});
              }),
              "op 'op' (ConvInteger): x_zero_point is int8 but x is uint8; they must have the "
              "same dtype");
}

TEST(InterpreterQLinearConv, RequantizesRoundingHalfToEven) {
    // x: (130, 120) - 128 = (2, -8); w: 132 - 128 = 4; accumulators 8 and -32, plus bias 1.
    // Rescaled by 0.5 * 0.25 / 0.25 = 0.5: 4.5 -> 4 and -15.5 -> -16, plus y_zero_point 100.
    const Tensor y = runOp(OpKind::QLinearConv,
                           {uint8({1, 1, 1, 2}, {130, 120}), fp32({}, {0.5F}), uint8({}, {128}),
                            uint8({1, 1, 1, 1}, {132}), fp32({}, {0.25F}), uint8({}, {128}),
                            fp32({}, {0.25F}), uint8({}, {100}), int32({1}, {1})});
    testing::expectTensorEq(y, uint8({1, 1, 1, 2}, {104, 84}));
}

TEST(InterpreterQLinearConv, RejectsAPerChannelScaleOfTheWrongLength) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(
                      OpKind::QLinearConv,
                      {Tensor::zeros(DType::UInt8, {1, 1, 2, 2}), Tensor::zeros(DType::Fp32, {}),
                       Tensor::zeros(DType::UInt8, {}), Tensor::zeros(DType::UInt8, {2, 1, 1, 1}),
                       Tensor::zeros(DType::Fp32, {3}), Tensor::zeros(DType::UInt8, {}),
                       Tensor::zeros(DType::Fp32, {}), Tensor::zeros(DType::UInt8, {})});
              }),
              "op 'op' (QLinearConv): w_scale must be a scalar or [1], or [2] for the output "
              "channels, got [3]");
}

}  // namespace
}  // namespace npusim::compiler
