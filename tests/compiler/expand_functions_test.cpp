// expand-functions: a function op (a vendor's QuickGelu) is replaced by its body of other ops,
// which computes what the op's reference semantics compute, in each float type.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/op_table.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

/// `x` in `dtype` (ONNX's Cast: FLOAT16 is element type 10).
Tensor inType(const Tensor& x, DType dtype) {
    return dtype == DType::Fp32 ? x : runOp(OpKind::Cast, {x}, {{"to", int64_t{10}}});
}

TEST(QuickGelu, IsXTimesTheSigmoidOfAlphaX) {
    const Tensor x = fp32({4}, {-2.0f, 0.0f, 0.5f, 3.0f});
    std::vector<float> expected;
    for (float v : x.as<float>()) expected.push_back(static_cast<float>(v / (1.0 + std::exp(-1.702 * v))));
    expectTensorNear(runOp(OpKind::QuickGelu, {x}), fp32({4}, expected), 1e-6);
    expected.clear();
    for (float v : x.as<float>()) expected.push_back(static_cast<float>(v / (1.0 + std::exp(-0.5 * v))));
    expectTensorNear(runOp(OpKind::QuickGelu, {x}, {{"alpha", 0.5}}), fp32({4}, expected), 1e-6);
    EXPECT_EQ(opInfo(OpKind::QuickGelu).name, "com.microsoft.QuickGelu");
    EXPECT_TRUE(hasTrait(OpKind::QuickGelu, kElementwise));
}

TEST(ExpandFunctions, QuickGeluBecomesItsBodyAndKeepsTheNumbers) {
    for (DType dtype : {DType::Fp32, DType::Fp16}) {
        const Tensor x = inType(randomFp32({3, 5}, 31, -4.0f, 4.0f), dtype);
        Graph graph = singleOpGraph(OpKind::QuickGelu, {x}, {{"alpha", 1.5}});
        const std::vector<Tensor> golden = interpretGraph(graph, {{"in0", x}});
        expandFunctions(graph);
        std::vector<OpKind> kinds;
        for (const Node& node : graph.nodes) kinds.push_back(node.kind);
        EXPECT_EQ(kinds, (std::vector<OpKind>{OpKind::Mul, OpKind::Sigmoid, OpKind::Mul}));
        EXPECT_EQ(graph.value(graph.nodes.back().outputs[0]).name, "out");
        expectTensorNear(interpretGraph(graph, {{"in0", x}})[0], golden[0], dtype == DType::Fp32 ? 1e-6 : 2e-3);
    }
}

TEST(ExpandFunctions, OpsWithoutABodyStay) {
    const Tensor x = randomFp32({4}, 32);
    Graph graph = singleOpGraph(OpKind::Gelu, {x});
    expandFunctions(graph);
    ASSERT_EQ(graph.nodes.size(), 1u);
    EXPECT_EQ(graph.nodes[0].kind, OpKind::Gelu);
}

}  // namespace
}  // namespace npusim::compiler
