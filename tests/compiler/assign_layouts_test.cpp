// assign-layouts: convolution results stay channels first through the readers that do not
// care, the next convolution reads them as they are, and one Reformat remains where a reader
// needs the declared layout; the graph still computes what it did.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/verifier.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using Ints = std::vector<int64_t>;

/// x[batch,3,8,8] -> conv1 -> relu1 -> pool -> conv2 -> + pool (residual) -> relu2 -> `tail`.
Graph convNet(int64_t batch, bool flattenToGemm) {
    testing::GraphBuilder b("convnet");
    const ValueId x = b.input("x", DType::Fp32, {batch, 3, 8, 8});
    const std::map<std::string, Attribute> same = {{"pads", Ints{1, 1, 1, 1}}};
    const ValueId c1 = b.op(OpKind::Conv, "conv1", {x, b.constant("w1", testing::randomFp32({4, 3, 3, 3}, 1))}, same);
    const ValueId r1 = b.op(OpKind::Relu, "relu1", {c1});
    const ValueId p1 = b.op(OpKind::MaxPool, "pool1", {r1}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}});
    const ValueId c2 = b.op(OpKind::Conv, "conv2", {p1, b.constant("w2", testing::randomFp32({4, 4, 3, 3}, 2))}, same);
    const ValueId r2 = b.op(OpKind::Relu, "relu2", {b.op(OpKind::Add, "residual", {c2, p1})});
    if (!flattenToGemm) return b.finish({r2});
    const ValueId flat = b.op(OpKind::Flatten, "flatten", {r2});
    return b.finish({b.op(OpKind::Gemm, "fc", {flat, b.constant("fc.w", testing::randomFp32({64, 5}, 3))})});
}

Graph lowered(const Graph& source) {
    Graph graph = source;
    convolutionToGemm(graph);
    assignLayouts(graph);
    verifyGraph(graph);
    return graph;
}

std::vector<const Node*> nodesOf(const Graph& graph, OpKind kind) {
    std::vector<const Node*> found;
    for (const Node& node : graph.nodes) {
        if (node.kind == kind) found.push_back(&node);
    }
    return found;
}

TEST(AssignLayouts, OneReformatRemainsInFrontOfTheFlatten) {
    const Graph source = convNet(2, true);
    const Graph graph = lowered(source);
    const std::vector<const Node*> reformats = nodesOf(graph, OpKind::Reformat);
    ASSERT_EQ(reformats.size(), 1u);
    EXPECT_EQ(reformats[0]->name, "relu2.reformat");
    EXPECT_EQ(std::get<std::string>(reformats[0]->attributes.at("from")), "CNHW");
    EXPECT_EQ(std::get<std::string>(reformats[0]->attributes.at("to")), "NCHW");
    const auto flatten = std::find_if(graph.nodes.begin(), graph.nodes.end(),
                                      [](const Node& n) { return n.kind == OpKind::Flatten; });
    ASSERT_NE(flatten, graph.nodes.end());
    EXPECT_EQ(flatten->inputs[0], reformats[0]->outputs[0]);
    // The second convolution reads the pooled tensor channels first.
    const std::vector<const Node*> im2cols = nodesOf(graph, OpKind::Im2Col);
    ASSERT_EQ(im2cols.size(), 2u);
    EXPECT_EQ(im2cols[0]->intAttr("channels_first", 0), 0);
    EXPECT_EQ(im2cols[1]->intAttr("channels_first", 0), 1);
    const std::map<std::string, Tensor> fed = {{"x", testing::randomFp32({2, 3, 8, 8}, 4)}};
    testing::expectTensorNear(interpretGraph(graph, fed).at(0), interpretGraph(source, fed).at(0), 1e-5);
}

TEST(AssignLayouts, AGraphOutputGetsItsDeclaredLayout) {
    const Graph source = convNet(3, false);
    const Graph graph = lowered(source);
    const std::vector<const Node*> reformats = nodesOf(graph, OpKind::Reformat);
    ASSERT_EQ(reformats.size(), 1u);
    EXPECT_EQ(reformats[0]->outputs[0], graph.outputs[0]);
    const std::map<std::string, Tensor> fed = {{"x", testing::randomFp32({3, 3, 8, 8}, 5)}};
    testing::expectTensorNear(interpretGraph(graph, fed).at(0), interpretGraph(source, fed).at(0), 1e-5);
}

TEST(AssignLayouts, AReformatSomeReaderNeedsStaysWhereItIs) {
    // conv -> Relu and conv -> Flatten: moving the Reformat below the Relu would only add one.
    testing::GraphBuilder b("fork");
    const ValueId x = b.input("x", DType::Fp32, {2, 3, 4, 4});
    const ValueId c = b.op(OpKind::Conv, "conv", {x, b.constant("w", testing::randomFp32({2, 3, 1, 1}, 1))});
    const Graph source = b.finish({b.op(OpKind::Relu, "relu", {c}), b.op(OpKind::Flatten, "flatten", {c})});
    const Graph graph = lowered(source);
    const std::vector<const Node*> reformats = nodesOf(graph, OpKind::Reformat);
    ASSERT_EQ(reformats.size(), 1u);
    EXPECT_EQ(reformats[0]->name, "conv.reformat");
    const std::map<std::string, Tensor> fed = {{"x", testing::randomFp32({2, 3, 4, 4}, 6)}};
    const std::vector<Tensor> expected = interpretGraph(source, fed), actual = interpretGraph(graph, fed);
    testing::expectTensorNear(actual.at(0), expected.at(0), 1e-5);
    testing::expectTensorNear(actual.at(1), expected.at(1), 1e-5);
}

TEST(AssignLayouts, ABatchOfOneNeedsNoReformat) {
    EXPECT_TRUE(nodesOf(lowered(convNet(1, true)), OpKind::Reformat).empty());
}

}  // namespace
}  // namespace npusim::compiler
