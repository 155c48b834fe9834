// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss against hand-worked losses: weights,
// ignore_index, the three reductions, spatial positions, and their located errors.
#include <gtest/gtest.h>

#include <cmath>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::expectTensorNear;
using testing::fp32;
using testing::inputErrorOf;
using testing::int64;
using testing::runOp;
using testing::runOpOutputs;

const Tensor kLogProbabilities = fp32({2, 3}, {-0.1f, -2.0f, -3.0f, -1.0f, -0.5f, -4.0f});
const Tensor kTarget = int64({2}, {2, 1});
const Tensor kWeight = fp32({3}, {0.2f, 1.0f, 2.0f});

Attribute reduction(const char* name) { return std::string(name); }

TEST(InterpreterLoss, NegativeLogLikelihoodPicksTheTargetClass) {
    const OpKind nll = OpKind::NegativeLogLikelihoodLoss;
    expectTensorNear(runOp(nll, {kLogProbabilities, kTarget}, {{"reduction", reduction("none")}}), fp32({2}, {3.0f, 0.5f}));
    // Weighted: 3 * 2 and 0.5 * 1; the mean divides by the weights' sum, 3.
    expectTensorNear(runOp(nll, {kLogProbabilities, kTarget, kWeight}, {{"reduction", reduction("none")}}),
                     fp32({2}, {6.0f, 0.5f}));
    expectTensorNear(runOp(nll, {kLogProbabilities, kTarget, kWeight}, {{"reduction", reduction("sum")}}), fp32({}, {6.5f}));
    expectTensorNear(runOp(nll, {kLogProbabilities, kTarget, kWeight}), fp32({}, {6.5f / 3.0f}));
    // An ignored target loses nothing and weighs nothing, even outside the classes.
    expectTensorNear(runOp(nll, {kLogProbabilities, kTarget, kWeight}, {{"ignore_index", int64_t{1}}}), fp32({}, {3.0f}));
    expectTensorNear(runOp(nll, {kLogProbabilities, int64({2}, {-7, 0})}, {{"ignore_index", int64_t{-7}}, {"reduction", reduction("none")}}),
                     fp32({2}, {0.0f, 1.0f}));
    // [N, C, d]: the class is the second dim, each position its own loss.
    const Tensor spatial = fp32({1, 2, 3}, {-1, -2, -3, -4, -5, -6});
    expectTensorNear(runOp(nll, {spatial, int64({1, 3}, {0, 1, 1})}, {{"reduction", reduction("none")}}),
                     fp32({1, 3}, {1.0f, 5.0f, 6.0f}));
    expectTensorNear(runOp(nll, {spatial, int64({1, 3}, {0, 1, 1})}), fp32({}, {4.0f}));
}

TEST(InterpreterLoss, SoftmaxCrossEntropyIsTheLossOfLogSoftmax) {
    // Equal scores: every class has log-probability -ln 3.
    const float third = -std::log(3.0f);
    const std::vector<Tensor> outputs =
        runOpOutputs(OpKind::SoftmaxCrossEntropyLoss, {fp32({1, 3}, {2, 2, 2}), int64({1}, {1})}, {}, 2);
    expectTensorNear(outputs[0], fp32({}, {-third}));
    expectTensorNear(outputs[1], fp32({1, 3}, {third, third, third}));
    // Scores [0, ln 3]: log-probabilities ln(1/4) and ln(3/4).
    expectTensorNear(runOp(OpKind::SoftmaxCrossEntropyLoss, {fp32({2, 2}, {0, std::log(3.0f), 0, std::log(3.0f)}), int64({2}, {0, 1})},
                           {{"reduction", reduction("none")}}),
                     fp32({2}, {std::log(4.0f), std::log(4.0f / 3.0f)}));
}

TEST(InterpreterLoss, RejectsMismatchedOperandsAndTargetsOutsideTheClasses) {
    const OpKind nll = OpKind::NegativeLogLikelihoodLoss;
    EXPECT_EQ(inputErrorOf([&] { runOp(nll, {kLogProbabilities, int64({3}, {0, 1, 2})}); }),
              "op 'op' (NegativeLogLikelihoodLoss): target must be [2] for input [2,3], got [3]");
    EXPECT_EQ(inputErrorOf([&] { runOp(nll, {kLogProbabilities, kTarget, fp32({2}, {1, 1})}); }),
              "op 'op' (NegativeLogLikelihoodLoss): weight must be [3] (one per class), got [2]");
    EXPECT_EQ(inputErrorOf([&] { runOp(nll, {kLogProbabilities, kTarget}, {{"reduction", reduction("max")}}); }),
              "op 'op' (NegativeLogLikelihoodLoss): reduction 'max' is not one of none, sum, mean");
    EXPECT_EQ(inputErrorOf([&] { runOp(nll, {kLogProbabilities, int64({2}, {0, 3})}); }),
              "op 'op' (NegativeLogLikelihoodLoss): target 3 is outside the classes [0, 3)");
    EXPECT_EQ(inputErrorOf([&] { runOp(OpKind::SoftmaxCrossEntropyLoss, {fp32({3}, {1, 2, 3}), int64({}, {0})}); }),
              "op 'op' (SoftmaxCrossEntropyLoss): input must have rank >= 2 ([N, C, ...]), got [3]");
}

}  // namespace
}  // namespace npusim::compiler
