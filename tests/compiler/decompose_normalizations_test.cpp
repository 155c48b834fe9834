// decompose-normalizations keeps the numbers: InstanceNormalization and MeanVarianceNormalization
// rewritten into NPU ops compute what the original ops' reference semantics compute.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

void expectDecompositionKeepsTheNumbers(Graph graph, const std::map<std::string, Tensor>& inputs, OpKind gone) {
    const std::vector<Tensor> golden = interpretGraph(graph, inputs);
    decomposeNormalizations(graph);
    for (const Node& node : graph.nodes) EXPECT_NE(node.kind, gone);
    const std::vector<Tensor> rewritten = interpretGraph(graph, inputs);
    ASSERT_EQ(rewritten.size(), golden.size());
    for (size_t i = 0; i < golden.size(); ++i) expectTensorNear(rewritten[i], golden[i], 1e-5);
}

TEST(DecomposeNormalizations, InstanceNormalizationBecomesALayerNormalization) {
    const Tensor x = randomFp32({2, 3, 4, 5}, 51), scale = randomFp32({3}, 52), bias = randomFp32({3}, 53);
    expectDecompositionKeepsTheNumbers(
        singleOpGraph(OpKind::InstanceNormalization, {x, scale, bias}, {{"epsilon", 0.01}}),
        {{"in0", x}, {"in1", scale}, {"in2", bias}}, OpKind::InstanceNormalization);
}

TEST(DecomposeNormalizations, MeanVarianceNormalizationBecomesReductionsAndArithmetic) {
    const Tensor x = randomFp32({3, 3, 3, 2}, 54);
    expectDecompositionKeepsTheNumbers(singleOpGraph(OpKind::MeanVarianceNormalization, {x}), {{"in0", x}},
                                       OpKind::MeanVarianceNormalization);
    expectDecompositionKeepsTheNumbers(
        singleOpGraph(OpKind::MeanVarianceNormalization, {x}, {{"axes", std::vector<int64_t>{-1, 1}}}), {{"in0", x}},
        OpKind::MeanVarianceNormalization);
}

}  // namespace
}  // namespace npusim::compiler
