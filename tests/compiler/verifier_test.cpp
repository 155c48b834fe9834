// Graph IR verifier: a valid graph passes; each structural or type fault gets a located message.
#include <gtest/gtest.h>

#include "compiler/graph/op_table.h"
#include "compiler/graph/verifier.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

/// x -> Relu "first" -> h -> Relu "second" -> y, in that (topological) node order.
Graph reluChain() {
    Graph graph;
    const ValueId x = graph.addValue(Value{"x", DType::Fp32, {2}, std::nullopt, -1, {}});
    const ValueId h = graph.addValue(Value{"h", DType::Fp32, {2}, std::nullopt, 0, {}});
    const ValueId y = graph.addValue(Value{"y", DType::Fp32, {2}, std::nullopt, 1, {}});
    graph.inputs = {x};
    graph.outputs = {y};
    graph.nodes.push_back(Node{"first", OpKind::Relu, {x}, {h}, {}});
    graph.nodes.push_back(Node{"second", OpKind::Relu, {h}, {y}, {}});
    return graph;
}

TEST(Verifier, AcceptsAValidGraph) {
    EXPECT_NO_THROW(verifyGraph(reluChain()));
}

TEST(Verifier, CatchesAUseBeforeItsDefinition) {
    Graph graph = reluChain();
    std::swap(graph.nodes[0], graph.nodes[1]);
    graph.value(1).producer = 1;  // h, now produced by the second node
    graph.value(2).producer = 0;  // y
    EXPECT_EQ(testing::inputErrorOf([&] { verifyGraph(graph); }),
              "op 'second' (Relu): input 'h' is used before it is defined (by op 'first')");
}

TEST(Verifier, CatchesAWrongRecordedOutputShape) {
    Graph graph = testing::singleOpGraph(
        OpKind::MatMul, {Tensor::zeros(DType::Fp32, {3, 4}), Tensor::zeros(DType::Fp32, {4, 3})});
    graph.value(graph.outputs[0]).shape = {3, 4};
    EXPECT_EQ(testing::inputErrorOf([&] { verifyGraph(graph); }),
              "op 'op' (MatMul): output 'out' is recorded as fp32[3,4] but the op computes "
              "fp32[3,3]");
}

TEST(Verifier, VerifyingInPlaceLeavesTheGraphAsItWas) {
    // The type functions run on the graph itself: a recorded type they disagree with is
    // reported, and put back as it was recorded.
    Graph graph = testing::singleOpGraph(
        OpKind::MatMul, {Tensor::zeros(DType::Fp32, {3, 4}), Tensor::zeros(DType::Fp32, {4, 3})});
    EXPECT_NO_THROW(verifyGraph(graph));
    graph.value(graph.outputs[0]).shape = {3, 4};
    EXPECT_EQ(testing::inputErrorOf([&] { verifyGraph(graph); }),
              "op 'op' (MatMul): output 'out' is recorded as fp32[3,4] but the op computes fp32[3,3]");
    EXPECT_EQ(graph.value(graph.outputs[0]).shape, (Shape{3, 4}));
}

TEST(Verifier, CatchesAValueWithoutAProducer) {
    Graph graph = reluChain();
    graph.nodes.pop_back();
    EXPECT_EQ(testing::inputErrorOf([&] { verifyGraph(graph); }),
              "value 'y' has no producer and is neither a graph input nor a constant");
}

TEST(Verifier, CatchesAWrongInputCountAndAnOutOfRangeId) {
    Graph graph = reluChain();
    graph.nodes[0].inputs.push_back(0);
    EXPECT_EQ(testing::inputErrorOf([&] { verifyGraph(graph); }),
              "op 'first' (Relu): expects 1 input, got 2");
    graph = reluChain();
    graph.nodes[1].inputs[0] = 7;
    EXPECT_EQ(testing::inputErrorOf([&] { verifyGraph(graph); }),
              "op 'second' (Relu): input 0 refers to value id 7, but the graph has 3 values");
}

}  // namespace
}  // namespace npusim::compiler
