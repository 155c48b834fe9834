// Concat and Split against hand-joined and hand-cut tensors: any axis, equal or listed parts
// (as input from opset 13, as attribute before), and the located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::runOp;
using testing::runOpOutputs;
using testing::runWithConstants;

TEST(InterpreterConcat, JoinsAlongTheAxis) {
    const Tensor a = fp32({2, 1}, {1, 2});
    const Tensor b = fp32({2, 2}, {3, 4, 5, 6});
    testing::expectTensorEq(runOp(OpKind::Concat, {a, b}, {{"axis", int64_t{1}}}),
                            fp32({2, 3}, {1, 3, 4, 2, 5, 6}));
    testing::expectTensorEq(
        runOp(OpKind::Concat, {fp32({1, 2}, {1, 2}), b, b}, {{"axis", int64_t{-2}}}),
        fp32({5, 2}, {1, 2, 3, 4, 5, 6, 3, 4, 5, 6}));
}

TEST(InterpreterConcat, RejectsInputsThatDoNotFit) {
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::Concat, {fp32({2, 1}, {1, 2}), fp32({3, 1}, {3, 4, 5})},
                        {{"axis", int64_t{1}}});
              }),
              "op 'op' (Concat): input 1 [3,1] does not fit input 0 [2,1] outside axis 1");
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::Concat, {fp32({1}, {1}), int32({1}, {2})}, {{"axis", int64_t{0}}});
              }),
              "op 'op' (Concat): input 1 is int32 but input 0 is fp32");
}

TEST(InterpreterSplit, CutsEqualOrListedParts) {
    const std::vector<Tensor> equal =
        runOpOutputs(OpKind::Split, {fp32({6}, {1, 2, 3, 4, 5, 6})}, {}, 3);
    testing::expectTensorEq(equal.at(0), fp32({2}, {1, 2}));
    testing::expectTensorEq(equal.at(1), fp32({2}, {3, 4}));
    testing::expectTensorEq(equal.at(2), fp32({2}, {5, 6}));

    // Opset 13: sizes as input 1.
    const Tensor x = fp32({2, 3}, {1, 2, 3, 4, 5, 6});
    const std::vector<Tensor> listed =
        runWithConstants(OpKind::Split, {x, int64({2}, {1, 2})}, {1}, {{"axis", int64_t{1}}}, 2);
    testing::expectTensorEq(listed.at(0), fp32({2, 1}, {1, 4}));
    testing::expectTensorEq(listed.at(1), fp32({2, 2}, {2, 3, 5, 6}));

    // Before opset 13: sizes as attribute; a part may be empty.
    const std::vector<Tensor> attribute = runOpOutputs(
        OpKind::Split, {x}, {{"axis", int64_t{-1}}, {"split", std::vector<int64_t>{0, 3}}}, 2);
    testing::expectTensorEq(attribute.at(0), fp32({2, 0}, {}));
    testing::expectTensorEq(attribute.at(1), x);
}

TEST(InterpreterSplit, RejectsPartsThatDoNotAddUp) {
    EXPECT_EQ(inputErrorOf([] {
                  runWithConstants(OpKind::Split,
                                   {fp32({6}, {1, 2, 3, 4, 5, 6}), int64({2}, {2, 2})}, {1}, {}, 2);
              }),
              "op 'op' (Split): split [2,2] must be 2 non-negative sizes adding up to 6 (axis 0 of "
              "[6])");
    EXPECT_EQ(inputErrorOf([] {
                  runOpOutputs(OpKind::Split, {fp32({4}, {1, 2, 3, 4})}, {}, 3);
              }),
              "op 'op' (Split): axis 0 of [4] does not split into 3 equal parts");
}

}  // namespace
}  // namespace npusim::compiler
