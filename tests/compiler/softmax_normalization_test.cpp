// Softmax, LogSoftmax and Hardmax (opset-13 single axis; pre-13 models where the 2-D form agrees),
// LayerNormalization (with its Mean and InvStdDev outputs) and inference BatchNormalization
// against hand-computed results, and their located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::runOp;
using testing::runOpOutputs;
using testing::singleOpGraph;

TEST(InterpreterSoftmax, NormalisesAlongTheLastAxisByDefault) {
    // Row 1: equal values -> 1/3 each. Row 2: e^k / (e + e^2 + e^3).
    const Tensor x = fp32({2, 3}, {0, 0, 0, 1, 2, 3});
    testing::expectTensorNear(
        runOp(OpKind::Softmax, {x}),
        fp32({2, 3}, {1.0f / 3, 1.0f / 3, 1.0f / 3, 0.09003057f, 0.24472847f, 0.66524096f}));
    // ln(1/3) = -1.0986123; x - 3 - ln(e^-2 + e^-1 + 1)
    testing::expectTensorNear(runOp(OpKind::LogSoftmax, {x}),
                              fp32({2, 3}, {-1.0986123f, -1.0986123f, -1.0986123f, -2.4076059f,
                                            -1.4076059f, -0.40760596f}));
}

TEST(InterpreterSoftmax, NormalisesAlongAGivenAxisWithoutOverflow) {
    // Columns: (1, 1) -> halves; (0, 2) -> 1 / (1 + e^2), e^2 / (1 + e^2).
    testing::expectTensorNear(
        runOp(OpKind::Softmax, {fp32({2, 2}, {1, 0, 1, 2})}, {{"axis", int64_t{0}}}),
        fp32({2, 2}, {0.5f, 0.11920292f, 0.5f, 0.88079708f}));
    testing::expectTensorEq(runOp(OpKind::Softmax, {fp32({2}, {1000, 1000})}),
                            fp32({2}, {0.5f, 0.5f}));
}

TEST(InterpreterSoftmax, AcceptsPreOpset13ModelsWhereTheFormsAgree) {
    // 2-D with the default axis (old 1 = new -1), and an axis followed by size-1 dims only.
    testing::expectTensorEq(runOpOutputs(OpKind::Softmax, {fp32({1, 2}, {3, 3})}, {}, 1, 11).at(0),
                            fp32({1, 2}, {0.5f, 0.5f}));
    testing::expectTensorEq(
        runOpOutputs(OpKind::Softmax, {fp32({1, 2, 1}, {7, 7})}, {{"axis", int64_t{1}}}, 1, 11)
            .at(0),
        fp32({1, 2, 1}, {0.5f, 0.5f}));
}

TEST(InterpreterSoftmax, HardmaxMarksTheFirstMaximumOfEachSlice) {
    // Along the last axis, ties to the first; along axis 0, per column.
    const Tensor x = fp32({2, 3}, {1, 5, 5, 7, 2, -1});
    testing::expectTensorEq(runOp(OpKind::Hardmax, {x}), fp32({2, 3}, {0, 1, 0, 1, 0, 0}));
    testing::expectTensorEq(runOp(OpKind::Hardmax, {x}, {{"axis", int64_t{0}}}), fp32({2, 3}, {0, 1, 1, 1, 0, 0}));
}

TEST(InterpreterSoftmax, RejectsInputsThatDoNotFitWithLocatedMessages) {
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::Softmax, {testing::int32({1}, {1})}); }),
              "op 'op' (Softmax): input is int32; Softmax supports fp32, fp16, bf16");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::LogSoftmax, {fp32({1, 1}, {1})}, {{"axis", int64_t{2}}});
              }),
              "op 'op' (LogSoftmax): axis 2 is out of range for rank 2");
    EXPECT_EQ(inputErrorOf([] {
                  testing::multiOutputOpGraph(OpKind::Softmax, {fp32({1, 2, 2}, {1, 2, 3, 4})}, {},
                                              1, 11);
              }),
              "op 'op' (Softmax): before opset 13 this op normalises over the dims from axis 1 "
              "on, flattened together (input [1,2,2]); npusim implements the single-axis form of "
              "opset 13, which differs here: export the model with opset 13 or later");
}

TEST(InterpreterLayerNormalization, NormalisesRowsAndReturnsTheStatistics) {
    // Rows [1,3] and [2,4]: means 2 and 3, variances 1 -> [-1, 1]; * [1,2] + [0,1] = [-1, 3].
    const std::vector<Tensor> outputs = runOpOutputs(
        OpKind::LayerNormalization,
        {fp32({2, 2}, {1, 3, 2, 4}), fp32({2}, {1, 2}), fp32({2}, {0, 1})}, {{"epsilon", 0.0}}, 3);
    testing::expectTensorEq(outputs.at(0), fp32({2, 2}, {-1, 3, -1, 3}));
    testing::expectTensorEq(outputs.at(1), fp32({2, 1}, {2, 3}));
    testing::expectTensorEq(outputs.at(2), fp32({2, 1}, {1, 1}));
}

TEST(InterpreterLayerNormalization, AxisZeroNormalisesEverythingWithoutBias) {
    // Mean 2, variance (1 + 1 + 0 + 0) / 4 = 0.5 -> (x - 2) * sqrt(2).
    testing::expectTensorNear(
        runOp(OpKind::LayerNormalization, {fp32({2, 2}, {1, 3, 2, 2}), fp32({2, 2}, {1, 1, 1, 1})},
              {{"axis", int64_t{0}}, {"epsilon", 0.0}}),
        fp32({2, 2}, {-1.4142135f, 1.4142135f, 0, 0}));
}

TEST(InterpreterLayerNormalization, RejectsInputsThatDoNotFitWithLocatedMessages) {
    const Tensor x = fp32({2, 2}, {1, 2, 3, 4});
    EXPECT_EQ(
        inputErrorOf([&] {
            singleOpGraph(OpKind::LayerNormalization, {x, Tensor::zeros(DType::Fp32, {2, 2, 2})});
        }),
        "op 'op' (LayerNormalization): Scale is [2,2,2], which does not broadcast to X "
        "[2,2]");
    EXPECT_EQ(inputErrorOf([&] {
                  singleOpGraph(OpKind::LayerNormalization, {x, fp32({2}, {1, 1})},
                                {{"stash_type", int64_t{16}}});
              }),
              "op 'op' (LayerNormalization): stash_type 16 is not supported; npusim computes the "
              "statistics in fp32 (stash_type 1)");
}

TEST(InterpreterBatchNormalization, AppliesTheRunningStatisticsPerChannel) {
    // Channel 0: (x - 1.5) / 0.5 * 1 + 0; channel 1: (x - 3.5) / 1 * 2 + 1.
    testing::expectTensorEq(
        runOp(OpKind::BatchNormalization,
              {fp32({1, 2, 2}, {1, 2, 3, 4}), fp32({2}, {1, 2}), fp32({2}, {0, 1}),
               fp32({2}, {1.5f, 3.5f}), fp32({2}, {0.25f, 1})},
              {{"epsilon", 0.0}}),
        fp32({1, 2, 2}, {-1, 1, 0, 2}));
}

TEST(InterpreterBatchNormalization, NonSpatialStatisticsArePerPosition) {
    const Tensor ones = fp32({2, 2}, {1, 1, 1, 1});
    testing::expectTensorEq(runOp(OpKind::BatchNormalization,
                                  {fp32({1, 2, 2}, {1, 2, 3, 4}), ones, fp32({2, 2}, {0, 0, 0, 0}),
                                   fp32({2, 2}, {1, 2, 3, 4}), ones},
                                  {{"epsilon", 0.0}, {"spatial", int64_t{0}}}),
                            fp32({1, 2, 2}, {0, 0, 0, 0}));
}

TEST(InterpreterBatchNormalization, TrainingModeNormalisesWithTheBatchsStatistics) {
    // Channel 0 holds 1 and 3 (mean 2, variance 1), channel 1 holds 4 and 6 (mean 5, variance 1).
    const Tensor x = fp32({2, 2}, {1, 4, 3, 6});
    const Tensor ones = fp32({2}, {1, 1}), zeros = fp32({2}, {0, 0});
    const std::vector<Tensor> out = runOpOutputs(OpKind::BatchNormalization, {x, ones, zeros, zeros, ones},
                                                 {{"training_mode", int64_t{1}}, {"epsilon", 0.0}, {"momentum", 0.5}}, 3);
    EXPECT_EQ(std::vector<float>(out[0].as<float>().begin(), out[0].as<float>().end()), (std::vector<float>{-1, -1, 1, 1}));
    EXPECT_EQ(std::vector<float>(out[1].as<float>().begin(), out[1].as<float>().end()), (std::vector<float>{1, 2.5f}));
    EXPECT_EQ(std::vector<float>(out[2].as<float>().begin(), out[2].as<float>().end()), (std::vector<float>{1, 1}));
}

TEST(InterpreterBatchNormalization, RejectsOldStatisticOutputsAndMisshapedStatistics) {
    const Tensor x = fp32({1, 2}, {1, 2});
    const Tensor channels = fp32({2}, {1, 1});
    EXPECT_EQ(inputErrorOf([&] {
                  testing::multiOutputOpGraph(OpKind::BatchNormalization, {x, channels, channels, channels, channels}, {}, 5);
              }),
              "op 'op' (BatchNormalization): outputs of running or saved statistics without training_mode "
              "(BatchNormalization before opset 14) are not supported");
    EXPECT_EQ(inputErrorOf([&] {
                  singleOpGraph(OpKind::BatchNormalization,
                                {x, channels, fp32({3}, {0, 0, 0}), channels, channels});
              }),
              "op 'op' (BatchNormalization): B must be [2] for X [1,2], got [3]");
}

}  // namespace
}  // namespace npusim::compiler
