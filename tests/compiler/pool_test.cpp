// Pooling reference semantics against hand-computed results: MaxPool (indices in both storage
// orders, ceil_mode, padding), AveragePool (with and without the padding counted),
// GlobalAveragePool and GlobalMaxPool, and their located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::int64;
using testing::int8;
using testing::runOp;

using Ints = std::vector<int64_t>;

TEST(InterpreterMaxPool, ReportsTheArgmaxInEitherStorageOrder) {
    const Tensor x = fp32({1, 1, 3, 3}, {1, 5, 2, 7, 3, 9, 4, 8, 6});
    const std::map<std::string, Attribute> kernel{{"kernel_shape", Ints{2, 2}}};
    const std::vector<Tensor> rowMajor = testing::runOpOutputs(OpKind::MaxPool, {x}, kernel, 2);
    testing::expectTensorEq(rowMajor[0], fp32({1, 1, 2, 2}, {7, 9, 8, 9}));
    // 7 at (1,0), 9 at (1,2), 8 at (2,1): row-major h * 3 + w.
    testing::expectTensorEq(rowMajor[1], int64({1, 1, 2, 2}, {3, 5, 7, 5}));
    std::map<std::string, Attribute> columnOrder = kernel;
    columnOrder["storage_order"] = int64_t{1};
    // Column-major w * 3 + h.
    testing::expectTensorEq(testing::runOpOutputs(OpKind::MaxPool, {x}, columnOrder, 2)[1],
                            int64({1, 1, 2, 2}, {1, 7, 5, 7}));
}

TEST(InterpreterMaxPool, CeilModeKeepsAPartialLastWindow) {
    const Tensor x = fp32({1, 1, 5}, {1, 3, 2, 5, 4});
    const std::map<std::string, Attribute> attributes{{"kernel_shape", Ints{2}},
                                                      {"strides", Ints{2}}};
    testing::expectTensorEq(runOp(OpKind::MaxPool, {x}, attributes), fp32({1, 1, 2}, {3, 5}));
    std::map<std::string, Attribute> ceil = attributes;
    ceil["ceil_mode"] = int64_t{1};
    testing::expectTensorEq(runOp(OpKind::MaxPool, {x}, ceil), fp32({1, 1, 3}, {3, 5, 4}));
}

TEST(InterpreterMaxPool, PaddingNeverWinsOverNegativeValues) {
    testing::expectTensorEq(runOp(OpKind::MaxPool, {int8({1, 1, 2}, {-5, -3})},
                                  {{"kernel_shape", Ints{2}}, {"pads", Ints{1, 1}}}),
                            int8({1, 1, 3}, {-5, -3, -3}));
}

TEST(InterpreterMaxPool, RejectsMissingKernelAndWindowsOfPaddingOnly) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::MaxPool, {Tensor::zeros(DType::Fp32, {1, 1, 4})});
              }),
              "op 'op' (MaxPool): the kernel_shape attribute is required");
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::MaxPool, {Tensor::zeros(DType::Fp32, {1, 1, 2})},
                                         {{"kernel_shape", Ints{1}}, {"pads", Ints{1, 0}}});
              }),
              "op 'op' (MaxPool): output position 0 of spatial dim 0 pools padding only (X "
              "[1,1,2], output [3])");
}

TEST(InterpreterAveragePool, CountsThePaddingOnlyWhenAsked) {
    const Tensor x = fp32({1, 1, 3}, {1, 2, 3});
    const std::map<std::string, Attribute> attributes{{"kernel_shape", Ints{2}},
                                                      {"pads", Ints{1, 1}}};
    testing::expectTensorEq(runOp(OpKind::AveragePool, {x}, attributes),
                            fp32({1, 1, 4}, {1, 1.5F, 2.5F, 3}));
    std::map<std::string, Attribute> countPadding = attributes;
    countPadding["count_include_pad"] = int64_t{1};
    testing::expectTensorEq(runOp(OpKind::AveragePool, {x}, countPadding),
                            fp32({1, 1, 4}, {0.5F, 1.5F, 2.5F, 1.5F}));
}

TEST(InterpreterAveragePool, CeilModeAveragesThePartialWindowOverItsElements) {
    testing::expectTensorEq(
        runOp(OpKind::AveragePool, {fp32({1, 1, 4}, {1, 2, 3, 4})},
              {{"kernel_shape", Ints{3}}, {"strides", Ints{2}}, {"ceil_mode", int64_t{1}}}),
        fp32({1, 1, 2}, {2, 3.5F}));
}

TEST(InterpreterAveragePool, RejectsAKernelOfTheWrongRank) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::AveragePool,
                                         {Tensor::zeros(DType::Fp32, {1, 1, 4, 4})},
                                         {{"kernel_shape", Ints{2}}});
              }),
              "op 'op' (AveragePool): kernel_shape [2] must have 2 positive values for X "
              "[1,1,4,4]");
}

TEST(InterpreterGlobalPool, ReducesEverySpatialDimPerChannel) {
    const Tensor x = fp32({1, 2, 2, 2}, {1, 2, 3, 6, /**/ -1, -2, -3, -4});
    testing::expectTensorEq(runOp(OpKind::GlobalAveragePool, {x}), fp32({1, 2, 1, 1}, {3, -2.5F}));
    testing::expectTensorEq(runOp(OpKind::GlobalMaxPool, {x}), fp32({1, 2, 1, 1}, {6, -1}));
}

TEST(InterpreterGlobalPool, RejectsAnInputWithoutSpatialDims) {
    EXPECT_EQ(
        testing::inputErrorOf([] {
            testing::singleOpGraph(OpKind::GlobalAveragePool, {Tensor::zeros(DType::Fp32, {2, 3})});
        }),
        "op 'op' (GlobalAveragePool): X must be [N, C, spatial...] with at least one "
        "spatial dim, none empty, got [2,3]");
    EXPECT_EQ(
        testing::inputErrorOf([] {
            testing::singleOpGraph(OpKind::GlobalMaxPool, {Tensor::zeros(DType::Int8, {1, 1, 2})});
        }),
        "op 'op' (GlobalMaxPool): X is int8; GlobalMaxPool supports fp32");
}

}  // namespace
}  // namespace npusim::compiler
