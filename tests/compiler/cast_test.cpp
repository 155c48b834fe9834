// Cast and CastLike between the held dtypes: truncation toward zero and numpy's wrap-around into
// integers, round to nearest even into fp16 and bf16, bool; the located errors.
#include <gtest/gtest.h>

#include <cmath>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::boolean;
using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::int8;
using testing::runOp;
using testing::uint8;

/// ONNX element type codes, as Cast's 'to' attribute carries them.
constexpr int64_t kFloat = 1, kUInt8 = 2, kInt8 = 3, kInt32 = 6, kBool = 9, kFloat16 = 10,
                  kDouble = 11, kBfloat16 = 16;

Tensor castTo(const Tensor& x, int64_t to) {
    return runOp(OpKind::Cast, {x}, {{"to", to}});
}

TEST(InterpreterCast, TruncatesFloatsAndWrapsIntegers) {
    testing::expectTensorEq(castTo(fp32({4}, {1.9f, -1.9f, 300.5f, -0.5f}), kInt32),
                            int32({4}, {1, -1, 300, 0}));
    // 300 wraps to 300 - 256 = 44 and -129 to 127, as numpy's astype does.
    testing::expectTensorEq(castTo(fp32({2}, {300.7f, -129}), kInt8), int8({2}, {44, 127}));
    testing::expectTensorEq(castTo(fp32({2}, {-1, 255.9f}), kUInt8), uint8({2}, {255, 255}));
    testing::expectTensorEq(castTo(int64({2}, {-1, 256}), kUInt8), uint8({2}, {255, 0}));
}

TEST(InterpreterCast, ConvertsToAndFromBool) {
    testing::expectTensorEq(castTo(fp32({4}, {0, 0.5f, -2, NAN}), kBool),
                            boolean({4}, {0, 1, 1, 1}));
    testing::expectTensorEq(castTo(boolean({2}, {1, 0}), kFloat), fp32({2}, {1, 0}));
}

TEST(InterpreterCast, RoundsToNearestEvenIntoHalfFormats) {
    // 2049 lies halfway between the fp16 values 2048 and 2050; the tie goes to 2048 (even).
    const Tensor half = castTo(int64({2}, {1, 2049}), kFloat16);
    EXPECT_EQ(half.dtype, DType::Fp16);
    EXPECT_EQ(half.valueAt(0), 1.0);
    EXPECT_EQ(half.valueAt(1), 2048.0);
    // bf16 keeps 7 mantissa bits: 1 + 2^-8 ties to 1, 1 + 3 * 2^-8 ties to 1 + 2^-6.
    const Tensor brain = castTo(fp32({2}, {1.00390625f, 1.01171875f}), kBfloat16);
    EXPECT_EQ(brain.dtype, DType::Bf16);
    EXPECT_EQ(brain.valueAt(0), 1.0);
    EXPECT_EQ(brain.valueAt(1), 1.015625);
}

TEST(InterpreterCast, CastLikeTakesTheSecondInputsDType) {
    testing::expectTensorEq(runOp(OpKind::CastLike, {fp32({2}, {2.5f, -7.9f}), int64({0}, {})}),
                            int64({2}, {2, -7}));
}

TEST(InterpreterCast, RejectsTargetsNpusimDoesNotHave) {
    EXPECT_EQ(inputErrorOf([] { castTo(fp32({1}, {1}), kDouble); }),
              "op 'op' (Cast): cannot cast to DOUBLE, which npusim does not support");
    EXPECT_EQ(inputErrorOf([] { runOp(OpKind::Cast, {fp32({1}, {1})}); }),
              "op 'op' (Cast): attribute 'to' is missing");
}

}  // namespace
}  // namespace npusim::compiler
