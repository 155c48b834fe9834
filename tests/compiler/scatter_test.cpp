// ScatterElements, Scatter, ScatterND (every reduction, repeated and negative indices) and
// GatherND (index tuples of every depth, batch dims) against hand-worked results, and their
// located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::expectTensorEq;
using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::runOp;
using testing::singleOpGraph;

Attribute reduction(const char* name) { return std::string(name); }

TEST(InterpreterScatter, ScatterElementsWritesAlongTheAxis) {
    // ONNX's example: axis 0, each update to the row its index names.
    const Tensor zeros = fp32({3, 3}, std::vector<float>(9, 0));
    const Tensor indices = int64({2, 3}, {1, 0, 2, 0, 2, 1});
    const Tensor updates = fp32({2, 3}, {1, 1.1f, 1.2f, 2, 2.1f, 2.2f});
    expectTensorEq(runOp(OpKind::ScatterElements, {zeros, indices, updates}),
                   fp32({3, 3}, {2, 1.1f, 0, 1, 0, 2.2f, 0, 2.1f, 1.2f}));
    expectTensorEq(runOp(OpKind::Scatter, {zeros, indices, updates}), fp32({3, 3}, {2, 1.1f, 0, 1, 0, 2.2f, 0, 2.1f, 1.2f}));
    // Along axis 1, a negative index and a repeated one: the last write wins, reductions take all.
    const Tensor row = fp32({1, 5}, {1, 2, 3, 4, 5});
    const Tensor pair = fp32({1, 2}, {1.5f, 2.5f});
    const std::map<std::string, Attribute> axis1 = {{"axis", int64_t{1}}};
    expectTensorEq(runOp(OpKind::ScatterElements, {row, int64({1, 2}, {1, -2}), pair}, axis1), fp32({1, 5}, {1, 1.5f, 3, 2.5f, 5}));
    expectTensorEq(runOp(OpKind::ScatterElements, {row, int64({1, 2}, {1, 1}), pair}, axis1), fp32({1, 5}, {1, 2.5f, 3, 4, 5}));
    const auto reduced = [&](const char* name) {
        return runOp(OpKind::ScatterElements, {row, int32({1, 2}, {1, 1}), pair}, {{"axis", int64_t{1}}, {"reduction", reduction(name)}});
    };
    expectTensorEq(reduced("add"), fp32({1, 5}, {1, 6, 3, 4, 5}));
    expectTensorEq(reduced("mul"), fp32({1, 5}, {1, 7.5f, 3, 4, 5}));
    expectTensorEq(reduced("max"), fp32({1, 5}, {1, 2.5f, 3, 4, 5}));
    expectTensorEq(reduced("min"), fp32({1, 5}, {1, 1.5f, 3, 4, 5}));
}

TEST(InterpreterScatter, ScatterNdWritesSlices) {
    expectTensorEq(runOp(OpKind::ScatterND, {fp32({8}, {1, 2, 3, 4, 5, 6, 7, 8}), int64({4, 1}, {4, 3, 1, 7}),
                                            fp32({4}, {9, 10, 11, 12})}),
                   fp32({8}, {1, 11, 3, 10, 9, 6, 7, 12}));
    const Tensor square = int32({2, 2}, {1, 2, 3, 4});
    expectTensorEq(runOp(OpKind::ScatterND, {square, int64({1, 1}, {-1}), int32({1, 2}, {10, 20})}, {{"reduction", reduction("mul")}}),
                   int32({2, 2}, {1, 2, 30, 80}));
    expectTensorEq(runOp(OpKind::ScatterND, {square, int64({2, 2}, {0, 1, 1, 0}), int32({2}, {5, 6})}, {{"reduction", reduction("add")}}),
                   int32({2, 2}, {1, 7, 9, 4}));
}

TEST(InterpreterScatter, GatherNdPicksSlicesWithinBatches) {
    const Tensor square = int32({2, 2}, {0, 1, 2, 3});
    expectTensorEq(runOp(OpKind::GatherND, {square, int64({2, 2}, {0, 0, 1, 1})}), int32({2}, {0, 3}));
    expectTensorEq(runOp(OpKind::GatherND, {square, int64({2, 1}, {1, 0})}), int32({2, 2}, {2, 3, 0, 1}));
    expectTensorEq(runOp(OpKind::GatherND, {square, int64({1, 2}, {-1, -2})}), int32({1}, {2}));
    expectTensorEq(runOp(OpKind::GatherND, {int32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), int64({2, 1}, {1, 0})},
                         {{"batch_dims", int64_t{1}}}),
                   int32({2, 2}, {2, 3, 4, 5}));
}

TEST(InterpreterScatter, RejectsMisshapedOperandsAndIndicesOutOfRange) {
    const Tensor row = fp32({1, 5}, {1, 2, 3, 4, 5});
    EXPECT_EQ(inputErrorOf([&] { runOp(OpKind::ScatterElements, {row, int64({1, 1}, {5}), fp32({1, 1}, {0})}, {{"axis", int64_t{1}}}); }),
              "op 'op' (ScatterElements): index 5 is out of range for axis 1 of size 5");
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::ScatterElements, {row, int64({1, 2}, {0, 0}), fp32({1, 1}, {0})}); }),
              "op 'op' (ScatterElements): updates [1,1] must have the shape of indices [1,2]");
    EXPECT_EQ(inputErrorOf([&] {
                  singleOpGraph(OpKind::ScatterND, {row, int64({1, 1}, {0}), fp32({1}, {0})}, {{"reduction", reduction("sub")}});
              }),
              "op 'op' (ScatterND): reduction 'sub' is not one of none, add, mul, max, min");
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::ScatterND, {row, int64({1, 1}, {0}), fp32({1}, {0})}); }),
              "op 'op' (ScatterND): updates must be [1,5] for data [1,5] and indices [1,1], got [1]");
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::GatherND, {row, int64({1, 3}, {0, 0, 0})}); }),
              "op 'op' (GatherND): indices [1,3] index 3 dims, but data [1,5] has 2 after its batch dims");
}

}  // namespace
}  // namespace npusim::compiler
