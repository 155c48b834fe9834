// fold-batch-norm: a BatchNormalization after a Conv disappears into the Conv's weights and bias,
// and the graph computes what it did; it stays when the Conv's result has another reader.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/verifier.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

/// x -> Conv(W, B) -> BatchNormalization -> y, every parameter a constant; with `tap`, the
/// Conv's result is a second graph output.
Graph convNorm(bool bias, bool tap) {
    Graph graph;
    graph.name = "conv_bn";
    auto constant = [&](const std::string& name, Tensor t) {
        return graph.addValue(Value{name, DType::Fp32, t.shape, std::move(t), -1, {}});
    };
    const ValueId x = graph.addValue(Value{"x", DType::Fp32, {2, 3, 6, 5}, std::nullopt, -1, {}});
    graph.inputs.push_back(x);
    std::vector<ValueId> convInputs = {x, constant("w", testing::randomFp32({4, 3, 3, 3}, 2))};
    if (bias) convInputs.push_back(constant("b", testing::randomFp32({4}, 3)));
    const ValueId c = graph.addValue(Value{"c", DType::Fp32, {2, 4, 6, 5}, std::nullopt, 0, {}});
    const ValueId y = graph.addValue(Value{"y", DType::Fp32, {2, 4, 6, 5}, std::nullopt, 1, {}});
    graph.nodes.push_back(Node{"conv", OpKind::Conv, convInputs, {c}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}});
    graph.nodes.push_back(Node{"bn", OpKind::BatchNormalization,
                               {c, constant("scale", testing::randomFp32({4}, 4, 0.5f, 1.5f)), constant("beta", testing::randomFp32({4}, 5)),
                                constant("mean", testing::randomFp32({4}, 6)), constant("var", testing::randomFp32({4}, 7, 0.5f, 1.5f))},
                               {y}, {{"epsilon", 1e-3}}});
    graph.outputs.push_back(y);
    if (tap) graph.outputs.push_back(c);
    return graph;
}

TEST(FoldBatchNorm, FoldsIntoTheConvAndKeepsTheResult) {
    for (bool bias : {true, false}) {
        const Graph source = convNorm(bias, false);
        Graph folded = source;
        foldBatchNorm(folded);
        verifyGraph(folded);
        ASSERT_EQ(folded.nodes.size(), 1u);
        EXPECT_EQ(folded.nodes[0].kind, OpKind::Conv);
        const std::map<std::string, Tensor> inputs = {{"x", testing::randomFp32({2, 3, 6, 5}, 1)}};
        testing::expectTensorNear(interpretGraph(folded, inputs).at(0), interpretGraph(source, inputs).at(0), 1e-5);
    }
}

TEST(FoldBatchNorm, LeavesAConvWhoseResultIsAlsoAnOutput) {
    Graph graph = convNorm(true, true);
    foldBatchNorm(graph);
    EXPECT_EQ(graph.nodes.size(), 2u);
}

}  // namespace
}  // namespace npusim::compiler
