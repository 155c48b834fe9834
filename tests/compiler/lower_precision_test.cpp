// lower-precision and the 16-bit GEMMs it makes: products summed in fp32 and rounded once;
// weights converted, activations cast, a GEMM read by fp32 ops keeping fp32 sums, the data
// movement between GEMMs narrowed, overrides kept wide, the graph's interface as declared.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "arch/float_formats.h"
#include "compiler/graph/elementwise.h"
#include "compiler/graph/interpreter.h"
#include "compiler/graph/parser.h"
#include "compiler/graph/verifier.h"
#include "compiler/passes/lower_precision.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

Tensor bf16(Shape shape, const std::vector<double>& values) { return ops::floatTensor(DType::Bf16, std::move(shape), values); }

TEST(Bf16MatMul, SumsInFp32AndRoundsOnce) {
    // 1 + 2^-8 + 2^-8: rounded after each addition, bf16 (8 significant bits) would stay at 1.
    const Tensor a = bf16({1, 3}, {1.0, 0x1p-8, 0x1p-8});
    const Tensor b = bf16({3, 1}, {1.0, 1.0, 1.0});
    const Tensor y = testing::runOp(OpKind::MatMul, {a, b});
    ASSERT_EQ(y.dtype, DType::Bf16);
    EXPECT_EQ(y.valueAt(0), 1.0 + 0x1p-7);
    // With output_type fp32 the sums stay unrounded: 1 + 2^-7 + 2^-9 needs more than bf16's bits.
    const Tensor c = bf16({1, 3}, {1.0, 0x1p-7, 0x1p-9});
    const Tensor wide = testing::runOp(OpKind::Gemm, {c, b}, {{"output_type", int64_t{1}}});
    ASSERT_EQ(wide.dtype, DType::Fp32);
    EXPECT_EQ(wide.valueAt(0), 1.0 + 0x1p-7 + 0x1p-9);
    EXPECT_EQ(testing::runOp(OpKind::Gemm, {c, b}).valueAt(0), 1.0 + 0x1p-7);  // rounded to bf16
}

TEST(Bf16MatMul, OutputTypeIsOnlyForSixteenBitOperands) {
    const Tensor a = testing::fp32({1, 1}, {1.0f});
    EXPECT_NE(testing::inputErrorOf([&] { testing::runOp(OpKind::MatMul, {a, a}, {{"output_type", int64_t{1}}}); })
                  .find("output_type"),
              std::string::npos);
}

/// x -> Gemm(W1, B1) -> Relu -> Gemm(W2, B2) -> y.
Graph mlp() {
    Graph graph;
    graph.name = "mlp";
    auto constant = [&](const std::string& name, Tensor t) { return graph.addValue(Value{name, DType::Fp32, t.shape, std::move(t), -1, {}}); };
    auto value = [&](const std::string& name, Shape shape, int producer) {
        return graph.addValue(Value{name, DType::Fp32, std::move(shape), std::nullopt, producer, {}});
    };
    const ValueId x = value("x", {4, 16}, -1);
    graph.inputs.push_back(x);
    const ValueId h = value("h", {4, 32}, 0), r = value("r", {4, 32}, 1), y = value("y", {4, 8}, 2);
    graph.nodes.push_back(Node{"fc1", OpKind::Gemm, {x, constant("w1", testing::randomFp32({16, 32}, 1)),
                                                     constant("b1", testing::randomFp32({32}, 2))}, {h}, {}});
    graph.nodes.push_back(Node{"relu", OpKind::Relu, {h}, {r}, {}});
    graph.nodes.push_back(Node{"fc2", OpKind::Gemm, {r, constant("w2", testing::randomFp32({32, 8}, 3)),
                                                     constant("b2", testing::randomFp32({8}, 4))}, {y}, {}});
    graph.outputs.push_back(y);
    return graph;
}

const Node& nodeNamed(const Graph& graph, const std::string& name) {
    return *std::find_if(graph.nodes.begin(), graph.nodes.end(), [&](const Node& n) { return n.name == name; });
}

TEST(LowerPrecision, GemmsTakeNarrowOperandsAndFp32OpsReadFp32) {
    const Graph source = mlp();
    Graph graph = source;
    lowerPrecision(graph, {Precision::Bf16, {}, {}});
    verifyGraph(graph);
    for (const char* name : {"fc1", "fc2"}) {
        const Node& gemm = nodeNamed(graph, name);
        EXPECT_EQ(graph.value(gemm.inputs[0]).dtype, DType::Bf16) << name;
        EXPECT_EQ(graph.value(gemm.inputs[1]).dtype, DType::Bf16) << name;
        EXPECT_TRUE(graph.value(gemm.inputs[1]).constant.has_value()) << name << ": the weight is converted, not cast";
        EXPECT_EQ(graph.value(gemm.inputs[2]).dtype, DType::Fp32) << name << ": the accumulator adds the bias";
        // Read by the ReLU and by the graph's output: the sums stay fp32.
        EXPECT_EQ(graph.value(gemm.outputs[0]).dtype, DType::Fp32) << name;
    }
    // The input is cast on the NPU; the ReLU's result is cast for fc2; the interface stays fp32.
    EXPECT_EQ(std::count_if(graph.nodes.begin(), graph.nodes.end(), [](const Node& n) { return n.kind == OpKind::Cast; }), 2);
    EXPECT_EQ(graph.value(graph.inputs[0]).dtype, DType::Fp32);
    EXPECT_EQ(graph.value(graph.outputs[0]).dtype, DType::Fp32);
    EXPECT_EQ(graph.value(nodeNamed(graph, "relu").outputs[0]).dtype, DType::Fp32);
    // It computes nearly what the fp32 graph does, not exactly.
    const std::map<std::string, Tensor> inputs = {{"x", testing::randomFp32({4, 16}, 9)}};
    const Tensor wide = interpretGraph(source, inputs).at(0), narrow = interpretGraph(graph, inputs).at(0);
    double largest = 0, worst = 0;
    for (int64_t i = 0; i < wide.elementCount(); ++i) {
        largest = std::max(largest, std::fabs(wide.valueAt(i)));
        worst = std::max(worst, std::fabs(wide.valueAt(i) - narrow.valueAt(i)));
    }
    EXPECT_GT(worst, 0);
    EXPECT_LT(worst, 2e-2 * largest);
}

TEST(LowerPrecision, DataMovementBetweenGemmsMovesNarrow) {
    const Graph source = parseGraph(
        "graph @g(%a: fp32[8,16], %b: fp32[16,8], %c: fp32[32,4]) -> (%y: fp32[2,4]) {\n"
        "  %p = MatMul(%a, %b)\n"
        "  %s = constant dense<int64[2]: [2, 32]>\n"
        "  %r = Reshape(%p, %s)\n"
        "  %y = MatMul(%r, %c)\n"
        "  return %y\n}\n");
    Graph graph = source;
    lowerPrecision(graph, {Precision::Fp16, {}, {}});
    verifyGraph(graph);
    const auto dtypeOf = [&](const std::string& name) {
        return std::find_if(graph.values.begin(), graph.values.end(), [&](const Value& v) { return v.name == name; })->dtype;
    };
    EXPECT_EQ(dtypeOf("p"), DType::Fp16);  // only the Reshape, a narrow op, reads it
    EXPECT_EQ(dtypeOf("r"), DType::Fp16);
    EXPECT_EQ(dtypeOf("y"), DType::Fp32);  // a graph output
}

TEST(LowerPrecision, OverridesKeepOpsWideByNameOrType) {
    Graph byName = mlp();
    lowerPrecision(byName, {Precision::Bf16, {{"fc2", Precision::Fp32}}, {}});
    EXPECT_EQ(byName.value(nodeNamed(byName, "fc1").inputs[0]).dtype, DType::Bf16);
    EXPECT_EQ(byName.value(nodeNamed(byName, "fc2").inputs[0]).dtype, DType::Fp32);
    Graph byType = mlp();
    lowerPrecision(byType, {Precision::Bf16, {{"Gemm", Precision::Fp32}}, {}});
    for (const Node& node : byType.nodes) EXPECT_NE(node.kind, OpKind::Cast);
    Graph declared = mlp();
    lowerPrecision(declared, {});
    EXPECT_EQ(declared.nodes.size(), mlp().nodes.size());
}

}  // namespace
}  // namespace npusim::compiler
