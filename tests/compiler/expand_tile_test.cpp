// Expand and Tile against hand-repeated tensors, and their located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int64;
using testing::runWithConstants;

TEST(InterpreterExpand, BroadcastsBothWays) {
    const Tensor column = fp32({3, 1}, {1, 2, 3});
    testing::expectTensorEq(
        runWithConstants(OpKind::Expand, {column, int64({3}, {2, 1, 2})}, {1}).at(0),
        fp32({2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
    // A shape smaller than the input keeps the input's dims.
    testing::expectTensorEq(runWithConstants(OpKind::Expand, {column, int64({1}, {1})}, {1}).at(0),
                            column);
    EXPECT_EQ(inputErrorOf([&] {
                  runWithConstants(OpKind::Expand, {column, int64({2}, {2, 2})}, {1});
              }),
              "op 'op' (Expand): shapes [3,1] and [2,2] do not broadcast");
}

TEST(InterpreterTile, RepeatsWholeCopiesAlongEachAxis) {
    const Tensor x = fp32({2, 2}, {1, 2, 3, 4});
    testing::expectTensorEq(runWithConstants(OpKind::Tile, {x, int64({2}, {1, 2})}, {1}).at(0),
                            fp32({2, 4}, {1, 2, 1, 2, 3, 4, 3, 4}));
    testing::expectTensorEq(runWithConstants(OpKind::Tile, {x, int64({2}, {2, 1})}, {1}).at(0),
                            fp32({4, 2}, {1, 2, 3, 4, 1, 2, 3, 4}));
    EXPECT_EQ(inputErrorOf([&] {
                  runWithConstants(OpKind::Tile, {x, int64({1}, {2})}, {1});
              }),
              "op 'op' (Tile): repeats [2] must have one entry per axis of [2,2]");
}

}  // namespace
}  // namespace npusim::compiler
