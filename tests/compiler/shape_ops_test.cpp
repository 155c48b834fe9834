// Shape, Size, ConstantOfShape and Range against hand-worked tensors, ConstantOfShape's tensor
// attribute in the printed graph, and the located errors.
#include <gtest/gtest.h>

#include "compiler/graph/printer.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::runOp;
using testing::runWithConstants;

TEST(InterpreterShape, GivesTheDimsInAClampedWindow) {
    const Tensor x = Tensor::zeros(DType::Fp32, {2, 3, 4});
    testing::expectTensorEq(runOp(OpKind::Shape, {x}), int64({3}, {2, 3, 4}));
    testing::expectTensorEq(
        runOp(OpKind::Shape, {x}, {{"start", int64_t{1}}, {"end", int64_t{-1}}}), int64({1}, {3}));
    testing::expectTensorEq(
        runOp(OpKind::Shape, {x}, {{"start", int64_t{-10}}, {"end", int64_t{10}}}),
        int64({3}, {2, 3, 4}));
    testing::expectTensorEq(runOp(OpKind::Shape, {x}, {{"start", int64_t{2}}, {"end", int64_t{1}}}),
                            int64({0}, {}));
}

TEST(InterpreterSize, CountsTheElements) {
    testing::expectTensorEq(runOp(OpKind::Size, {Tensor::zeros(DType::Bool, {2, 3, 4})}),
                            int64({}, {24}));
}

TEST(InterpreterConstantOfShape, FillsTheShapeWithTheValueAttribute) {
    testing::expectTensorEq(runWithConstants(OpKind::ConstantOfShape, {int64({2}, {2, 3})}, {0},
                                             {{"value", int32({1}, {7})}})
                                .at(0),
                            int32({2, 3}, {7, 7, 7, 7, 7, 7}));
    // Without a value: fp32 zeros.
    testing::expectTensorEq(runWithConstants(OpKind::ConstantOfShape, {int64({1}, {2})}, {0}).at(0),
                            fp32({2}, {0, 0}));
    EXPECT_EQ(printGraph(testing::constantOperandGraph(OpKind::ConstantOfShape, {int64({1}, {2})},
                                                       {0}, {{"value", int32({1}, {7})}})),
              "graph @single() -> (%out: int32[2]) {\n"
              "  %in0 = constant dense<int64[1]: [2]>\n"
              "  %out = ConstantOfShape(%in0) {name = \"op\", value = dense<int32[1]: [7]>}\n"
              "  return %out\n"
              "}\n");
    EXPECT_EQ(inputErrorOf([] {
                  runWithConstants(OpKind::ConstantOfShape, {int64({2}, {2, -1})}, {0});
              }),
              "op 'op' (ConstantOfShape): shape [2,-1] has a negative dimension");
}

TEST(InterpreterRange, CountsUpOrDownToTheLimit) {
    // ceil((4 - 10) / -3) = 2 elements.
    testing::expectTensorEq(
        runWithConstants(OpKind::Range, {int32({}, {10}), int32({}, {4}), int32({}, {-3})},
                         {0, 1, 2})
            .at(0),
        int32({2}, {10, 7}));
    // ceil((5 - 1) / 1.5) = 3 elements.
    testing::expectTensorEq(
        runWithConstants(OpKind::Range, {fp32({}, {1}), fp32({}, {5}), fp32({}, {1.5f})}, {0, 1, 2})
            .at(0),
        fp32({3}, {1, 2.5f, 4}));
    // A limit behind the start gives no elements.
    testing::expectTensorEq(
        runWithConstants(OpKind::Range, {int64({}, {3}), int64({}, {1}), int64({}, {1})}, {0, 1, 2})
            .at(0),
        int64({0}, {}));
    EXPECT_EQ(inputErrorOf([] {
                  runWithConstants(OpKind::Range, {int32({}, {0}), int32({}, {4}), int32({}, {0})},
                                   {0, 1, 2});
              }),
              "op 'op' (Range): delta must be non-zero");
    EXPECT_EQ(
        inputErrorOf([] {
            testing::singleOpGraph(OpKind::Range, {int32({}, {0}), int32({}, {4}), int32({}, {1})});
        }),
        "op 'op' (Range): start ('in0') must be a constant (an initializer or a Constant "
        "node), since it decides the output shape");
}

}  // namespace
}  // namespace npusim::compiler
