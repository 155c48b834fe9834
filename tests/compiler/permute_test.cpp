// Transpose, DepthToSpace (DCR and CRD) and SpaceToDepth against hand-permuted elements, and
// their located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::runOp;

TEST(InterpreterTranspose, ReversesAxesByDefaultOrFollowsPerm) {
    testing::expectTensorEq(runOp(OpKind::Transpose, {fp32({2, 3}, {1, 2, 3, 4, 5, 6})}),
                            fp32({3, 2}, {1, 4, 2, 5, 3, 6}));
    // out[i][j][k] = x[j][i][k]
    testing::expectTensorEq(runOp(OpKind::Transpose, {fp32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})},
                                  {{"perm", std::vector<int64_t>{1, 0, 2}}}),
                            fp32({2, 2, 2}, {0, 1, 4, 5, 2, 3, 6, 7}));
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::Transpose, {fp32({2, 2}, {1, 2, 3, 4})},
                        {{"perm", std::vector<int64_t>{0, 0}}});
              }),
              "op 'op' (Transpose): perm [0,0] is not a permutation of the 2 input axes");
}

TEST(InterpreterDepthToSpace, MovesChannelBlocksIntoSpace) {
    // 8 channels of 1x1, blocksize 2: 2 output channels of 2x2.
    const Tensor x = fp32({1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
    // DCR: out[c][i][j] = x[(i * 2 + j) * 2 + c]
    testing::expectTensorEq(runOp(OpKind::DepthToSpace, {x}, {{"blocksize", int64_t{2}}}),
                            fp32({1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7}));
    // CRD: out[c][i][j] = x[c * 4 + i * 2 + j]
    testing::expectTensorEq(
        runOp(OpKind::DepthToSpace, {x}, {{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}),
        fp32({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(
        inputErrorOf([] {
            runOp(OpKind::DepthToSpace, {fp32({1, 3, 1, 1}, {1, 2, 3})},
                  {{"blocksize", int64_t{2}}});
        }),
        "op 'op' (DepthToSpace): channels of [1,3,1,1] must be a multiple of blocksize^2 = 4");
}

TEST(InterpreterSpaceToDepth, MovesSpatialBlocksIntoChannels) {
    // 2 channels of 2x2: out channel (i * 2 + j) * 2 + c = x[c][i][j].
    const Tensor x = fp32({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    const Tensor depth = runOp(OpKind::SpaceToDepth, {x}, {{"blocksize", int64_t{2}}});
    testing::expectTensorEq(depth, fp32({1, 8, 1, 1}, {0, 4, 1, 5, 2, 6, 3, 7}));
    // DepthToSpace in DCR mode undoes it.
    testing::expectTensorEq(runOp(OpKind::DepthToSpace, {depth}, {{"blocksize", int64_t{2}}}), x);
    EXPECT_EQ(inputErrorOf([] {
                  runOp(OpKind::SpaceToDepth, {fp32({1, 1, 3, 2}, {1, 2, 3, 4, 5, 6})},
                        {{"blocksize", int64_t{2}}});
              }),
              "op 'op' (SpaceToDepth): height and width of [1,1,3,2] must be multiples of "
              "blocksize 2");
}

}  // namespace
}  // namespace npusim::compiler
