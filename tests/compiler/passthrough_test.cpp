// Identity and inference-mode Dropout pass their input through; Dropout's optional mask is all
// true, and training mode or a pre-opset-10 mask are located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::boolean;
using testing::fp32;
using testing::inputErrorOf;
using testing::runOp;
using testing::runOpOutputs;

TEST(InterpreterPassthrough, IdentityCopiesAnyDType) {
    testing::expectTensorEq(runOp(OpKind::Identity, {fp32({2}, {1.5f, -2})}),
                            fp32({2}, {1.5f, -2}));
    testing::expectTensorEq(runOp(OpKind::Identity, {boolean({3}, {1, 0, 1})}),
                            boolean({3}, {1, 0, 1}));
}

TEST(InterpreterPassthrough, DropoutKeepsEveryElementAndMasksAllTrue) {
    const Tensor x = fp32({2, 2}, {1, -2, 3, -4});
    testing::expectTensorEq(runOp(OpKind::Dropout, {x}, {{"ratio", 0.5}}), x);
    const std::vector<Tensor> outputs =
        runOpOutputs(OpKind::Dropout, {x, fp32({}, {0.75f}), boolean({}, {0})}, {}, 2);
    testing::expectTensorEq(outputs.at(0), x);
    testing::expectTensorEq(outputs.at(1), boolean({2, 2}, {1, 1, 1, 1}));
}

TEST(InterpreterPassthrough, DropoutInTrainingModeDropsOrScalesEachElement) {
    const Tensor x = fp32({64}, std::vector<float>(64, 1.5f));
    const std::vector<Tensor> out =
        runOpOutputs(OpKind::Dropout, {x, fp32({}, {0.25f}), boolean({}, {1})}, {{"seed", int64_t{3}}}, 2);
    int kept = 0;
    for (int i = 0; i < 64; ++i) {
        const bool keep = out[1].as<uint8_t>()[i] != 0;
        kept += keep;
        EXPECT_FLOAT_EQ(out[0].as<float>()[i], keep ? 2.0f : 0.0f) << i;  // 1.5 / (1 - 0.25)
    }
    EXPECT_GT(kept, 32);
    EXPECT_LT(kept, 64);
}

TEST(InterpreterPassthrough, DropoutRejectsOldMasksAndMisshapedRatios) {
    const Tensor x = fp32({2}, {1, 2});
    EXPECT_EQ(inputErrorOf([&] { runOpOutputs(OpKind::Dropout, {x}, {}, 2, 9); }),
              "op 'op' (Dropout): the mask output before opset 10 has the data's dtype; npusim "
              "gives Dropout's mask as bool (opset 10 on)");
    EXPECT_EQ(inputErrorOf([&] {
                  runOp(OpKind::Dropout, {x, fp32({1}, {0.5f})});
              }),
              "op 'op' (Dropout): ratio must be a scalar, got [1]");
}

}  // namespace
}  // namespace npusim::compiler
