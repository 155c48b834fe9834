// Compile-time evaluation of single nodes: all-constant inputs, shape-only ops on variable
// inputs, nodes that must wait for run time, and errors found while folding.
#include <gtest/gtest.h>

#include "compiler/graph/constant_eval.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::constantOperandGraph;
using testing::fp32;
using testing::int64;

TEST(ConstantEval, EvaluatesANodeWhoseInputsAreAllConstant) {
    const Graph graph = constantOperandGraph(
        OpKind::Reshape, {fp32({2, 2}, {1, 2, 3, 4}), int64({1}, {-1})}, {0, 1});
    const std::optional<std::vector<Tensor>> outputs = evaluateIfConstant(graph, graph.nodes.at(0));
    ASSERT_TRUE(outputs.has_value());
    testing::expectTensorEq(outputs->at(0), fp32({4}, {1, 2, 3, 4}));
}

TEST(ConstantEval, LeavesANodeWithAVariableInputForRunTime) {
    const Graph graph =
        constantOperandGraph(OpKind::Reshape, {fp32({2, 2}, {1, 2, 3, 4}), int64({1}, {-1})}, {1});
    EXPECT_FALSE(evaluateIfConstant(graph, graph.nodes.at(0)).has_value());
}

TEST(ConstantEval, EvaluatesShapeAndSizeOfVariableInputs) {
    const Tensor x = Tensor::zeros(DType::Fp32, {2, 5});
    const Graph shape = constantOperandGraph(OpKind::Shape, {x}, {});
    testing::expectTensorEq(evaluateIfConstant(shape, shape.nodes.at(0)).value().at(0),
                            int64({2}, {2, 5}));
    const Graph size = constantOperandGraph(OpKind::Size, {x}, {});
    testing::expectTensorEq(evaluateIfConstant(size, size.nodes.at(0)).value().at(0),
                            int64({}, {10}));
}

TEST(ConstantEval, ReportsTheOpsErrorsWithTheirLocation) {
    const Graph graph =
        constantOperandGraph(OpKind::Gather, {fp32({2}, {1, 2}), int64({1}, {2})}, {0, 1});
    EXPECT_EQ(testing::inputErrorOf([&] { evaluateIfConstant(graph, graph.nodes.at(0)); }),
              "op 'op' (Gather): index 2 is out of range for axis 0 of size 2");
}

}  // namespace
}  // namespace npusim::compiler
