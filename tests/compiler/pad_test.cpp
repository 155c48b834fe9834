// Pad in modes constant, edge and reflect against numpy.pad's results; negative pads crop;
// pads and value as attributes (before opset 11) or inputs, axes (opset 18); located errors.
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

Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode) {
    return runWithConstants(OpKind::Pad, {x, int64({static_cast<int64_t>(pads.size())}, pads)}, {1},
                            {{"mode", mode}})
        .at(0);
}

TEST(InterpreterPad, FillsWithTheConstantValue) {
    // pads = [begin axis 0, begin axis 1, end axis 0, end axis 1]
    const Tensor x = int32({2, 2}, {1, 2, 3, 4});
    testing::expectTensorEq(
        runWithConstants(OpKind::Pad, {x, int64({4}, {0, 1, 1, 0}), int32({}, {9})}, {1}).at(0),
        int32({3, 3}, {9, 1, 2, 9, 3, 4, 9, 9, 9}));
    // Opset 2: pads and value as attributes, the value converted to the data's dtype.
    testing::expectTensorEq(runOp(OpKind::Pad, {fp32({2}, {1, 2})},
                                  {{"pads", std::vector<int64_t>{1, 0}}, {"value", 1.5}}),
                            fp32({3}, {1.5f, 1, 2}));
}

TEST(InterpreterPad, RepeatsOrMirrorsTheBorder) {
    const Tensor x = fp32({1, 3}, {1, 2, 3});
    // np.pad([1, 2, 3], 2, "edge") and np.pad([1, 2, 3], 2, "reflect")
    testing::expectTensorEq(pad(x, {0, 2, 0, 2}, "edge"), fp32({1, 7}, {1, 1, 1, 2, 3, 3, 3}));
    testing::expectTensorEq(pad(x, {0, 2, 0, 2}, "reflect"), fp32({1, 7}, {3, 2, 1, 2, 3, 2, 1}));
}

TEST(InterpreterPad, CropsWithNegativePadsAndPadsListedAxes) {
    testing::expectTensorEq(pad(fp32({4}, {1, 2, 3, 4}), {-1, 1}, "constant"),
                            fp32({4}, {2, 3, 4, 0}));
    // Opset 18: axes (input 3) lists the padded axes.
    testing::expectTensorEq(runWithConstants(OpKind::Pad,
                                             {fp32({2, 2}, {1, 2, 3, 4}), int64({2}, {1, 1}),
                                              std::nullopt, int64({1}, {-1})},
                                             {1, 3})
                                .at(0),
                            fp32({2, 4}, {0, 1, 2, 0, 0, 3, 4, 0}));
}

TEST(InterpreterPad, RejectsMisshapenPadsAndUnknownModes) {
    const Tensor x = fp32({2, 2}, {1, 2, 3, 4});
    EXPECT_EQ(inputErrorOf([&] {
                  pad(x, {1, 1}, "constant");
              }),
              "op 'op' (Pad): pads [1,1] must have 2 entries per padded axis (4) for input [2,2]");
    EXPECT_EQ(inputErrorOf([&] {
                  pad(x, {0, 0, 0, 0}, "wrap");
              }),
              "op 'op' (Pad): mode 'wrap' is not supported (supported: constant, edge, reflect)");
    EXPECT_EQ(inputErrorOf([&] {
                  pad(x, {-2, 0, -1, 0}, "constant");
              }),
              "op 'op' (Pad): pads [-2,0,-1,0] remove more than the 2 elements of axis 0");
}

}  // namespace
}  // namespace npusim::compiler
