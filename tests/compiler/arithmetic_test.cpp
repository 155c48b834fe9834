// Add, Sub, Mul, Div, Pow and the variadic Max, Min, Sum, Mean against hand-computed results:
// broadcasting, integer wrap-around and truncating division, mixed Pow dtypes, and the located
// errors for inputs that do not fit.
#include <gtest/gtest.h>

#include <cmath>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::int8;
using testing::runOp;
using testing::singleOpGraph;
using testing::uint8;

TEST(InterpreterArithmetic, AddBroadcastsARowAcrossAMatrix) {
    testing::expectTensorEq(
        runOp(OpKind::Add, {fp32({2, 3}, {1, 2, 3, 4, 5, 6}), fp32({3}, {10, 20, 30})}),
        fp32({2, 3}, {11, 22, 33, 14, 25, 36}));
}

TEST(InterpreterArithmetic, AddBroadcastsBothOperands) {
    // [2,1] + [1,3] -> [2,3]
    testing::expectTensorEq(
        runOp(OpKind::Add, {int32({2, 1}, {100, 200}), int32({1, 3}, {1, 2, 3})}),
        int32({2, 3}, {101, 102, 103, 201, 202, 203}));
}

TEST(InterpreterArithmetic, Uint8AddAndSubWrapModulo256) {
    // 250 + 10 = 260 = 256 + 4; 3 - 5 = -2 = 256 - 2
    testing::expectTensorEq(runOp(OpKind::Add, {uint8({2}, {250, 1}), uint8({2}, {10, 2})}),
                            uint8({2}, {4, 3}));
    testing::expectTensorEq(runOp(OpKind::Sub, {uint8({2}, {3, 9}), uint8({2}, {5, 4})}),
                            uint8({2}, {254, 5}));
}

TEST(InterpreterArithmetic, SubAndMulOnFloatsAndInt8) {
    testing::expectTensorEq(runOp(OpKind::Sub, {fp32({3}, {1.5f, 0, -2}), fp32({}, {0.5f})}),
                            fp32({3}, {1, -0.5f, -2.5f}));
    // 64 * 3 = 192 = 256 - 64 -> -64 as int8; -7 * 5 = -35
    testing::expectTensorEq(runOp(OpKind::Mul, {int8({2}, {64, -7}), int8({2}, {3, 5})}),
                            int8({2}, {-64, -35}));
    testing::expectTensorEq(runOp(OpKind::Mul, {fp32({2}, {1.5f, -2}), fp32({2}, {4, 0.25f})}),
                            fp32({2}, {6, -0.5f}));
}

TEST(InterpreterArithmetic, DivTruncatesIntegersTowardZero) {
    testing::expectTensorEq(runOp(OpKind::Div, {uint8({3}, {7, 255, 3}), uint8({3}, {2, 16, 5})}),
                            uint8({3}, {3, 15, 0}));
    testing::expectTensorEq(runOp(OpKind::Div, {int32({3}, {-7, 7, -8}), int32({3}, {2, -2, -3})}),
                            int32({3}, {-3, -3, 2}));
    testing::expectTensorEq(runOp(OpKind::Div, {fp32({2}, {1, -3}), fp32({2}, {4, 2})}),
                            fp32({2}, {0.25f, -1.5f}));
}

TEST(InterpreterArithmetic, ModTakesTheDivisorsSignUnlessFmod) {
    const Tensor a = int32({5}, {-7, 7, -7, 6, 5}), b = int32({5}, {2, -2, -2, 3, 0});
    testing::expectTensorEq(runOp(OpKind::Mod, {a, b}), int32({5}, {1, -1, -1, 0, 0}));
    testing::expectTensorEq(runOp(OpKind::Mod, {a, b}, {{"fmod", int64_t{1}}}), int32({5}, {-1, 1, -1, 0, 0}));
    testing::expectTensorEq(runOp(OpKind::Mod, {fp32({2}, {-5.5f, 5.5f}), fp32({1}, {2})}, {{"fmod", int64_t{1}}}),
                            fp32({2}, {-1.5f, 1.5f}));
    EXPECT_EQ(testing::inputErrorOf([] { testing::singleOpGraph(OpKind::Mod, {fp32({1}, {1}), fp32({1}, {1})}); }),
              "op 'op' (Mod): A is fp32; float inputs need fmod = 1");
}

TEST(InterpreterArithmetic, BitShiftLosesTheBitsShiftedOut) {
    const Tensor x = uint8({4}, {1, 0x81, 200, 7}), amounts = uint8({4}, {3, 1, 8, 0});
    testing::expectTensorEq(runOp(OpKind::BitShift, {x, amounts}, {{"direction", std::string("LEFT")}}),
                            uint8({4}, {8, 0x02, 0, 7}));
    testing::expectTensorEq(runOp(OpKind::BitShift, {x, amounts}, {{"direction", std::string("RIGHT")}}),
                            uint8({4}, {0, 0x40, 0, 7}));
    // The amount broadcasts.
    testing::expectTensorEq(runOp(OpKind::BitShift, {x, uint8({}, {2})}, {{"direction", std::string("RIGHT")}}),
                            uint8({4}, {0, 0x20, 50, 1}));
    EXPECT_EQ(testing::inputErrorOf([&] { testing::singleOpGraph(OpKind::BitShift, {x, amounts}, {{"direction", std::string("UP")}}); }),
              "op 'op' (BitShift): direction is 'UP'; it must be LEFT or RIGHT");
    EXPECT_EQ(testing::inputErrorOf([&] { testing::singleOpGraph(OpKind::BitShift, {int32({1}, {1}), int32({1}, {1})}); }),
              "op 'op' (BitShift): X is int32; BitShift supports uint8");
}

TEST(InterpreterArithmetic, PowKeepsTheBaseDType) {
    testing::expectTensorEq(runOp(OpKind::Pow, {fp32({3}, {2, 9, -2}), fp32({3}, {10, 0.5f, 3})}),
                            fp32({3}, {1024, 3, -8}));
    // fp32 base, int64 exponent -> fp32
    testing::expectTensorEq(runOp(OpKind::Pow, {fp32({2}, {3, 2}), int64({2}, {4, -1})}),
                            fp32({2}, {81, 0.5f}));
    // int64 base, fp32 exponent -> int64, the real power truncated: 2^1.5 = 2.83 -> 2
    testing::expectTensorEq(runOp(OpKind::Pow, {int64({2}, {2, 5}), fp32({2}, {1.5f, 2})}),
                            int64({2}, {2, 25}));
    // int32 powers are exact and wrap: 3^21 = 10460353203 = 2 * 2^32 + 1870418611
    testing::expectTensorEq(runOp(OpKind::Pow, {int32({2}, {3, -2}), int32({2}, {21, 3})}),
                            int32({2}, {1870418611, -8}));
}

TEST(InterpreterArithmetic, MaxAndMinOverThreeBroadcastInputs) {
    const Tensor a = fp32({3}, {1, 5, 3}), b = fp32({1}, {2}), c = fp32({2, 1}, {0, 4});
    testing::expectTensorEq(runOp(OpKind::Max, {a, b, c}), fp32({2, 3}, {2, 5, 3, 4, 5, 4}));
    testing::expectTensorEq(runOp(OpKind::Min, {a, b, c}), fp32({2, 3}, {0, 0, 0, 1, 2, 2}));
    testing::expectTensorEq(runOp(OpKind::Max, {int8({2}, {-5, 7})}), int8({2}, {-5, 7}));
    testing::expectTensorEq(runOp(OpKind::Min, {uint8({2}, {200, 3}), uint8({2}, {100, 9})}),
                            uint8({2}, {100, 3}));
}

TEST(InterpreterArithmetic, MaxPropagatesNaN) {
    const Tensor out = runOp(OpKind::Max, {fp32({2}, {NAN, 1}), fp32({2}, {1, NAN})});
    EXPECT_TRUE(std::isnan(out.valueAt(0)));
    EXPECT_TRUE(std::isnan(out.valueAt(1)));
}

TEST(InterpreterArithmetic, SumAndMeanOfThreeInputs) {
    const Tensor a = fp32({2}, {1, 2}), b = fp32({2}, {3, 4}), c = fp32({}, {5});
    testing::expectTensorEq(runOp(OpKind::Sum, {a, b, c}), fp32({2}, {9, 11}));
    testing::expectTensorEq(runOp(OpKind::Mean, {a, b, c}), fp32({2}, {3, 11.0f / 3}));
    testing::expectTensorEq(runOp(OpKind::Sum, {a}), a);
}

TEST(InterpreterArithmetic, RejectsInputsThatDoNotFitWithLocatedMessages) {
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::Add, {fp32({2}, {1, 2}), int32({2}, {1, 2})});
              }),
              "op 'op' (Add): A is fp32 but B is int32; both must have the same dtype");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::Sub, {fp32({2, 3}, {1, 2, 3, 4, 5, 6}), fp32({2}, {1, 2})});
              }),
              "op 'op' (Sub): shapes [2,3] and [2] do not broadcast");
    EXPECT_EQ(
        inputErrorOf([] {
            singleOpGraph(OpKind::Mul, {testing::boolean({1}, {1}), testing::boolean({1}, {1})});
        }),
        "op 'op' (Mul): A is bool; Mul supports fp32, fp16, bf16, int8, uint8, int32, int64");
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::Div, {int32({2}, {4, 5}), int32({2}, {2, 0})});
              }),
              "op 'op' (Div): integer division by zero");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::Pow, {uint8({1}, {2}), uint8({1}, {2})});
              }),
              "op 'op' (Pow): X is uint8; Pow supports fp32, fp16, bf16, int32, int64");
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::Pow, {int32({1}, {-2}), fp32({1}, {0.5f})});
              }),
              "op 'op' (Pow): -2 ^ 0.5 is not representable in int32");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::Max, {fp32({2}, {1, 2}), fp32({3}, {1, 2, 3})});
              }),
              "op 'op' (Max): shapes [2] and [3] do not broadcast");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::Min, {int8({1}, {1}), int32({1}, {1})});
              }),
              "op 'op' (Min): data_1 is int32 but data_0 is int8; all inputs must have the same "
              "dtype");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::Sum, {int32({1}, {1})}); }),
              "op 'op' (Sum): data_0 is int32; Sum supports fp32, fp16, bf16");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::Mean, {}); }),
              "op 'op' (Mean): expects at least 1 input, got 0");
}

}  // namespace
}  // namespace npusim::compiler
