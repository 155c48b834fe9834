// InstanceNormalization, MeanVarianceNormalization and LRN against hand-worked results, and their
// located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::expectTensorNear;
using testing::fp32;
using testing::inputErrorOf;
using testing::runOp;
using testing::singleOpGraph;

TEST(InterpreterChannelNormalization, InstanceNormalizationScalesEachChannel) {
    // Each channel [-1, 0, 1] around its mean has variance 2/3: x / sqrt(2/3 + 1e-5).
    const Tensor x = fp32({1, 2, 1, 3}, {-1, 0, 1, 2, 3, 4});
    expectTensorNear(runOp(OpKind::InstanceNormalization, {x, fp32({2}, {1.0f, 1.5f}), fp32({2}, {0, 1})}),
                     fp32({1, 2, 1, 3}, {-1.2247357f, 0, 1.2247357f, -0.8371035f, 1, 2.8371035f}));
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::InstanceNormalization, {x, fp32({3}, {1, 1, 1}), fp32({2}, {0, 0})}); }),
              "op 'op' (InstanceNormalization): scale must be [2] (one per channel), got [3]");
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::InstanceNormalization, {fp32({2, 2}, {1, 2, 3, 4}), fp32({2}, {1, 1}), fp32({2}, {0, 0})}); }),
              "op 'op' (InstanceNormalization): input must have rank >= 3 ([N, C, ...]), got [2,2]");
}

TEST(InterpreterChannelNormalization, MeanVarianceNormalizationOverTheDefaultAxes) {
    // Channel 0 holds {1, 2}, channel 1 {3, 5}: each becomes {-1, 1}.
    expectTensorNear(runOp(OpKind::MeanVarianceNormalization, {fp32({1, 2, 2, 1}, {1, 2, 3, 5})}),
                     fp32({1, 2, 2, 1}, {-1, 1, -1, 1}));
    // Over axis 1 alone: each [x, y] pair.
    expectTensorNear(runOp(OpKind::MeanVarianceNormalization, {fp32({2, 2}, {1, 3, 4, 4})}, {{"axes", std::vector<int64_t>{1}}}),
                     fp32({2, 2}, {-1, 1, 0, 0}));
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::MeanVarianceNormalization, {fp32({2, 2}, {1, 2, 3, 4})}); }),
              "op 'op' (MeanVarianceNormalization): axes 2 is out of range for rank 2");
}

TEST(InterpreterChannelNormalization, LrnDividesByTheChannelWindowsSquares) {
    // size 2: channel c's window is [c, c + 1]; y = x / (1 + (1 / 2) * sum of squares).
    expectTensorNear(runOp(OpKind::LRN, {fp32({1, 3, 1, 1}, {1, 2, 3})},
                           {{"size", int64_t{2}}, {"alpha", 1.0}, {"beta", 1.0}, {"bias", 1.0}}),
                     fp32({1, 3, 1, 1}, {1.0f / 3.5f, 2.0f / 7.5f, 3.0f / 5.5f}));
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::LRN, {fp32({1, 2}, {1, 2})}); }),
              "op 'op' (LRN): size must be at least 1, got 0");
}

}  // namespace
}  // namespace npusim::compiler
