// Gather, GatherElements and OneHot against hand-picked elements: any axis, negative indices,
// int32 and int64 indices, and the located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::runOp;
using testing::runWithConstants;

TEST(InterpreterGather, PicksSlicesAlongTheAxis) {
    const Tensor rows = fp32({3, 2}, {1, 2, 3, 4, 5, 6});
    // Indices [2,2] replace axis 0: out[i][j][:] = rows[indices[i][j]][:].
    testing::expectTensorEq(runOp(OpKind::Gather, {rows, int64({2, 2}, {0, 1, -1, 0})}),
                            fp32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 1, 2}));
    testing::expectTensorEq(
        runOp(OpKind::Gather, {fp32({2, 3}, {1, 2, 3, 4, 5, 6}), int32({2}, {2, 0})},
              {{"axis", int64_t{1}}}),
        fp32({2, 2}, {3, 1, 6, 4}));
    // A scalar index removes the axis.
    testing::expectTensorEq(runOp(OpKind::Gather, {rows, int64({}, {1})}), fp32({2}, {3, 4}));
    EXPECT_EQ(inputErrorOf([&] {
                  runOp(OpKind::Gather, {rows, int64({1}, {3})});
              }),
              "op 'op' (Gather): index 3 is out of range for axis 0 of size 3");
}

TEST(InterpreterGatherElements, PicksOneElementPerIndex) {
    const Tensor data = fp32({2, 2}, {1, 2, 3, 4});
    // out[i][j] = data[i][indices[i][j]]
    testing::expectTensorEq(
        runOp(OpKind::GatherElements, {data, int64({2, 2}, {0, 0, 1, 0})}, {{"axis", int64_t{1}}}),
        fp32({2, 2}, {1, 1, 4, 3}));
    // out[i][j] = data[indices[i][j]][j], with -1 the last row.
    testing::expectTensorEq(runOp(OpKind::GatherElements, {data, int32({1, 2}, {-1, 0})}),
                            fp32({1, 2}, {3, 2}));
    EXPECT_EQ(inputErrorOf([&] {
                  runOp(OpKind::GatherElements, {data, int64({2}, {0, 1})});
              }),
              "op 'op' (GatherElements): indices [2] must have the rank of data [2,2] and no "
              "larger dims outside axis 0");
}

TEST(InterpreterOneHot, MarksEachIndexAlongANewAxis) {
    const Tensor offOn = fp32({2}, {0, 1});
    // Depth 3: -1 is index 2, and 5 is out of range (all off).
    testing::expectTensorEq(
        runWithConstants(OpKind::OneHot, {int64({3}, {0, -1, 5}), int64({}, {3}), offOn}, {1})
            .at(0),
        fp32({3, 3}, {1, 0, 0, 0, 0, 1, 0, 0, 0}));
    // Axis 0: out[k][i] = indices[i] == k; a float depth is truncated.
    testing::expectTensorEq(
        runWithConstants(OpKind::OneHot, {int64({2}, {1, 0}), fp32({1}, {2.5f}), offOn}, {1},
                         {{"axis", int64_t{0}}})
            .at(0),
        fp32({2, 2}, {0, 1, 1, 0}));
    EXPECT_EQ(inputErrorOf([&] {
                  runWithConstants(OpKind::OneHot,
                                   {int64({1}, {0}), int64({}, {2}), fp32({3}, {0, 1, 2})}, {1});
              }),
              "op 'op' (OneHot): values must hold two elements (off, on), got [3]");
}

}  // namespace
}  // namespace npusim::compiler
