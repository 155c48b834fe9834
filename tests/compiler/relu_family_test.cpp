// LeakyRelu, PRelu, HardSigmoid, HardSwish and Clip (bounds as opset-11 inputs or pre-11 attributes,
// integer Clip) against hand-computed results, and their located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int8;
using testing::runOp;
using testing::singleOpGraph;

TEST(InterpreterReluFamily, LeakyReluScalesNegativeValues) {
    // Default alpha 0.01 (as float32: 0.0099999998).
    testing::expectTensorNear(runOp(OpKind::LeakyRelu, {fp32({3}, {-2, 0, 3})}),
                              fp32({3}, {-0.02f, 0, 3}));
    testing::expectTensorEq(runOp(OpKind::LeakyRelu, {fp32({2}, {-2, 3})}, {{"alpha", 0.5}}),
                            fp32({2}, {-1, 3}));
}

TEST(InterpreterReluFamily, PReluScalesNegativeValuesByTheirChannelsSlope) {
    // Slope [2, 1] broadcasts over X [1, 2, 2]: channel 0 by 0.5, channel 1 by -2.
    testing::expectTensorEq(runOp(OpKind::PRelu, {fp32({1, 2, 2}, {-2, 3, -1, 0}), fp32({2, 1}, {0.5f, -2})}),
                            fp32({1, 2, 2}, {-1, 3, 2, 0}));
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::PRelu, {fp32({2}, {1, 2}), fp32({2, 2}, {1, 2, 3, 4})}); }),
              "op 'op' (PRelu): slope [2,2] does not broadcast to X [2]");
}

TEST(InterpreterReluFamily, HardSigmoidAndHardSwishRampBetweenZeroAndOne) {
    // Defaults alpha 0.2, beta 0.5: 0.2 x + 0.5 clamped to [0, 1].
    testing::expectTensorNear(runOp(OpKind::HardSigmoid, {fp32({4}, {-5, 0, 1, 5})}),
                              fp32({4}, {0, 0.5f, 0.7f, 1}));
    testing::expectTensorEq(
        runOp(OpKind::HardSigmoid, {fp32({2}, {1, -1})}, {{"alpha", 0.5}, {"beta", 0.25}}),
        fp32({2}, {0.75f, 0}));
    // x * clamp(x / 6 + 0.5, 0, 1): -4 -> 0, 0 -> 0, 3 -> 3, 1.5 -> 1.5 * 0.75
    testing::expectTensorEq(runOp(OpKind::HardSwish, {fp32({4}, {-4, 0, 3, 1.5f})}),
                            fp32({4}, {0, 0, 3, 1.125f}));
}

TEST(InterpreterReluFamily, ClipWithInputBounds) {
    const Tensor x = fp32({4}, {-3, -1, 1, 3});
    testing::expectTensorEq(runOp(OpKind::Clip, {x, fp32({}, {-2}), fp32({}, {2})}),
                            fp32({4}, {-2, -1, 1, 2}));
    // Only max given; where min > max, max wins.
    testing::expectTensorEq(runOp(OpKind::Clip, {x, std::nullopt, fp32({}, {0})}),
                            fp32({4}, {-3, -1, 0, 0}));
    testing::expectTensorEq(runOp(OpKind::Clip, {x, fp32({}, {2}), fp32({}, {1})}),
                            fp32({4}, {1, 1, 1, 1}));
    testing::expectTensorEq(runOp(OpKind::Clip, {x}), x);
}

TEST(InterpreterReluFamily, ClipWithAttributeBoundsAndIntegers) {
    testing::expectTensorEq(runOp(OpKind::Clip, {fp32({3}, {-3, 0.5f, 3})}, {{"min", -1.0}}),
                            fp32({3}, {-1, 0.5f, 3}));
    testing::expectTensorEq(
        runOp(OpKind::Clip, {int8({4}, {-128, -5, 5, 127}), int8({}, {-10}), int8({}, {10})}),
        int8({4}, {-10, -5, 5, 10}));
}

TEST(InterpreterReluFamily, RejectsInputsThatDoNotFitWithLocatedMessages) {
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::LeakyRelu, {int8({1}, {1})}); }),
              "op 'op' (LeakyRelu): X is int8; LeakyRelu supports fp32, fp16, bf16");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::HardSigmoid, {int8({1}, {1})}); }),
              "op 'op' (HardSigmoid): X is int8; HardSigmoid supports fp32, fp16, bf16");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::HardSwish, {int8({1}, {1})}); }),
              "op 'op' (HardSwish): X is int8; HardSwish supports fp32, fp16, bf16");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::Clip, {fp32({2}, {1, 2}), fp32({2}, {0, 0})});
              }),
              "op 'op' (Clip): min must be a scalar, got [2]");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::Clip, {fp32({2}, {1, 2}), std::nullopt, int8({}, {0})});
              }),
              "op 'op' (Clip): max is int8 but input is fp32; they must have the same dtype");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::Clip, {fp32({1}, {1}), fp32({}, {0})}, {{"min", 0.0}});
              }),
              "op 'op' (Clip): min is given both as an attribute and an input");
}

}  // namespace
}  // namespace npusim::compiler
