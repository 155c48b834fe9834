// max-pool-indices: the rewritten graph reports the same values and indices as MaxPool, for
// padding, strides, dilations, batches, 1-D and 3-D windows and both storage orders.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/verifier.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using Ints = std::vector<int64_t>;

void expectIndicesMatch(const Shape& x, std::map<std::string, Attribute> attributes) {
    const Tensor input = testing::randomFp32(x, 11);
    Graph graph = testing::multiOutputOpGraph(OpKind::MaxPool, {input}, std::move(attributes), 2);
    const Graph reference = graph;
    computeMaxPoolIndices(graph);
    verifyGraph(graph);
    for (const Node& node : graph.nodes) {
        if (node.kind == OpKind::MaxPool) {
            EXPECT_EQ(node.outputs.size(), 1u);
        }
    }
    const std::map<std::string, Tensor> fed = {{"in0", input}};
    const std::vector<Tensor> expected = interpretGraph(reference, fed), actual = interpretGraph(graph, fed);
    ASSERT_EQ(actual.size(), 2u);
    testing::expectTensorNear(actual[0], expected[0], 0);
    EXPECT_EQ(actual[1].dtype, DType::Int64);
    EXPECT_EQ(actual[1].shape, expected[1].shape);
    EXPECT_EQ(actual[1].as<int64_t>().size(), expected[1].as<int64_t>().size());
    EXPECT_TRUE(std::equal(actual[1].as<int64_t>().begin(), actual[1].as<int64_t>().end(),
                           expected[1].as<int64_t>().begin()));
}

TEST(MaxPoolIndices, MatchTheReference) {
    expectIndicesMatch({2, 3, 7, 6}, {{"kernel_shape", Ints{3, 2}}, {"strides", Ints{2, 1}}, {"pads", Ints{1, 0, 1, 1}}});
    expectIndicesMatch({1, 2, 8, 8}, {{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}, {"storage_order", int64_t{1}}});
    expectIndicesMatch({3, 2, 9}, {{"kernel_shape", Ints{3}}, {"strides", Ints{2}}, {"auto_pad", std::string("SAME_UPPER")}});
    expectIndicesMatch({1, 2, 4, 5, 6}, {{"kernel_shape", Ints{2, 2, 3}}, {"storage_order", int64_t{1}}});
}

TEST(MaxPoolIndices, CeilModeIsLeftAlone) {
    Graph graph = testing::multiOutputOpGraph(OpKind::MaxPool, {testing::randomFp32({1, 1, 5, 5}, 1)},
                                              {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}}, 2);
    computeMaxPoolIndices(graph);
    ASSERT_EQ(graph.nodes.size(), 1u);
    EXPECT_EQ(graph.nodes[0].outputs.size(), 2u);
}

}  // namespace
}  // namespace npusim::compiler
