// The Reduce* family against hand-computed reductions: axes as attribute or constant input,
// negative axes, keepdims, default (all) axes and noop_with_empty_axes, integer reductions, and
// the located errors for axes and dtypes that do not fit.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/verifier.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::inputErrorOf;
using testing::int32;
using testing::int64;
using testing::runOp;
using testing::singleOpGraph;

using Attributes = std::map<std::string, Attribute>;
using Axes = std::vector<int64_t>;

/// Runs `kind` on `data` with `axes` given as a constant second input (the opset-13 ReduceSum
/// form).
Tensor reduceWithAxesInput(OpKind kind, const Tensor& data, const Axes& axes,
                           Attributes attributes = {}) {
    Graph graph;
    const ValueId in = graph.addValue(Value{"data", data.dtype, data.shape, std::nullopt, -1, {}});
    const Tensor axesTensor = int64({static_cast<int64_t>(axes.size())}, axes);
    const ValueId axesId =
        graph.addValue(Value{"axes", DType::Int64, axesTensor.shape, axesTensor, -1, {}});
    const ValueId out = graph.addValue(Value{"out", DType::Fp32, {}, std::nullopt, 0, {}});
    graph.inputs = {in};
    graph.outputs = {out};
    graph.nodes.push_back(Node{"op", kind, {in, axesId}, {out}, std::move(attributes)});
    opInfo(kind).inferTypes(graph, graph.nodes.back());
    verifyGraph(graph);
    return interpretGraph(graph, {{"data", data}}).at(0);
}

const Tensor kMatrix = fp32({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(InterpreterReduce, SumAlongAxesFromAnInputOrAnAttribute) {
    testing::expectTensorEq(reduceWithAxesInput(OpKind::ReduceSum, kMatrix, {1}),
                            fp32({2, 1}, {6, 15}));
    testing::expectTensorEq(runOp(OpKind::ReduceSum, {kMatrix}, {{"axes", Axes{0}}}),
                            fp32({1, 3}, {5, 7, 9}));
    testing::expectTensorEq(
        reduceWithAxesInput(OpKind::ReduceSum, kMatrix, {-1}, {{"keepdims", int64_t{0}}}),
        fp32({2}, {6, 15}));
}

TEST(InterpreterReduce, EmptyAxesReduceEverythingOrNothing) {
    testing::expectTensorEq(runOp(OpKind::ReduceSum, {kMatrix}), fp32({1, 1}, {21}));
    testing::expectTensorEq(reduceWithAxesInput(OpKind::ReduceSum, kMatrix, {}),
                            fp32({1, 1}, {21}));
    // An empty axes input is known from its shape, constant or not.
    testing::expectTensorEq(
        runOp(OpKind::ReduceSum, {kMatrix, int64({0}, {})}, {{"noop_with_empty_axes", int64_t{1}}}),
        kMatrix);
}

TEST(InterpreterReduce, MeanMaxMinProd) {
    const Attributes dropDims = {{"keepdims", int64_t{0}}};
    testing::expectTensorEq(
        runOp(OpKind::ReduceMean, {kMatrix}, {{"axes", Axes{0}}, {"keepdims", int64_t{0}}}),
        fp32({3}, {2.5f, 3.5f, 4.5f}));
    testing::expectTensorEq(runOp(OpKind::ReduceMax, {kMatrix}), fp32({1, 1}, {6}));
    testing::expectTensorEq(
        runOp(OpKind::ReduceMin, {kMatrix}, {{"axes", Axes{-1}}, {"keepdims", int64_t{0}}}),
        fp32({2}, {1, 4}));
    testing::expectTensorEq(runOp(OpKind::ReduceProd, {kMatrix}, {{"axes", Axes{1}}}),
                            fp32({2, 1}, {6, 120}));
}

TEST(InterpreterReduce, SumSquareL1L2) {
    const Attributes rows = {{"axes", Axes{1}}, {"keepdims", int64_t{0}}};
    testing::expectTensorEq(
        runOp(OpKind::ReduceSumSquare, {kMatrix}, {{"axes", Axes{0}}, {"keepdims", int64_t{0}}}),
        fp32({3}, {17, 29, 45}));
    testing::expectTensorEq(runOp(OpKind::ReduceL1, {fp32({2, 2}, {-1, 2, -3, 4})}, rows),
                            fp32({2}, {3, 7}));
    testing::expectTensorEq(runOp(OpKind::ReduceL2, {fp32({2, 2}, {3, -4, 6, 8})}, rows),
                            fp32({2}, {5, 10}));
}

TEST(InterpreterReduce, LogSumAndLogSumExp) {
    const Attributes rows = {{"axes", Axes{1}}, {"keepdims", int64_t{0}}};
    // ln(0.25 + 0.75) = 0; ln(3 + 7) = 2.3025851
    testing::expectTensorNear(
        runOp(OpKind::ReduceLogSum, {fp32({2, 2}, {0.25f, 0.75f, 3, 7})}, rows),
        fp32({2}, {0, 2.3025851f}));
    // ln(e^0 + e^0) = ln 2; ln(e^1000 + e^1000) = 1000 + ln 2, without overflowing e^1000.
    testing::expectTensorNear(
        runOp(OpKind::ReduceLogSumExp, {fp32({2, 2}, {0, 0, 1000, 1000})}, rows),
        fp32({2}, {0.6931472f, 1000.6931472f}));
}

TEST(InterpreterReduce, IntegerReductionsWrap) {
    testing::expectTensorEq(
        runOp(OpKind::ReduceSum, {int64({3}, {INT64_MAX, 1, 5})}, {{"keepdims", int64_t{0}}}),
        int64({}, {INT64_MIN + 5}));
    testing::expectTensorEq(runOp(OpKind::ReduceMax, {testing::int8({3}, {-5, 7, -128})}),
                            testing::int8({1}, {7}));
    testing::expectTensorEq(runOp(OpKind::ReduceL1, {int32({3}, {-5, 7, -1})}), int32({1}, {13}));
}

TEST(InterpreterReduce, RejectsAxesAndDTypesThatDoNotFit) {
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::ReduceSum, {kMatrix, int64({1}, {0})});
              }),
              "op 'op' (ReduceSum): axes ('in1') must be a constant (an initializer or a Constant "
              "node), since it decides the output shape");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::ReduceMean, {int32({1}, {1})}); }),
              "op 'op' (ReduceMean): data is int32; ReduceMean supports fp32, fp16, bf16");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::ReduceMax, {kMatrix}, {{"axes", Axes{0, -2}}});
              }),
              "op 'op' (ReduceMax): axes name dim 0 twice");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::ReduceMin, {kMatrix}, {{"axes", Axes{2}}});
              }),
              "op 'op' (ReduceMin): axes entry 2 is out of range for rank 2");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::ReduceProd, {testing::boolean({1}, {1})}); }),
              "op 'op' (ReduceProd): data is bool; ReduceProd supports fp32, fp16, bf16, int32, "
              "int64");
    EXPECT_EQ(
        inputErrorOf([] { singleOpGraph(OpKind::ReduceSumSquare, {testing::uint8({1}, {1})}); }),
        "op 'op' (ReduceSumSquare): data is uint8; ReduceSumSquare supports fp32, fp16, "
        "bf16, int32, int64");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::ReduceL1, {testing::int8({1}, {1})}); }),
              "op 'op' (ReduceL1): data is int8; ReduceL1 supports fp32, fp16, bf16, int32, int64");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::ReduceL2, {int32({1}, {1})}); }),
              "op 'op' (ReduceL2): data is int32; ReduceL2 supports fp32, fp16, bf16");
    EXPECT_EQ(inputErrorOf([] { singleOpGraph(OpKind::ReduceLogSum, {int64({1}, {1})}); }),
              "op 'op' (ReduceLogSum): data is int64; ReduceLogSum supports fp32, fp16, bf16");
    EXPECT_EQ(
        inputErrorOf([] {
            singleOpGraph(OpKind::ReduceLogSumExp, {kMatrix, int64({0}, {})}, {{"axes", Axes{0}}});
        }),
        "op 'op' (ReduceLogSumExp): axes is given both as an attribute and an input");
    EXPECT_EQ(inputErrorOf([] {
                  singleOpGraph(OpKind::ReduceSum, {kMatrix, int64({1, 1}, {0})});
              }),
              "op 'op' (ReduceSum): axes must be 1-D, got [1,1]");
}

}  // namespace
}  // namespace npusim::compiler
