// Reference interpreter: constants, the checks on provided inputs, and typed attribute reads.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/verifier.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;

Graph twoInputMatMul() {
    return testing::singleOpGraph(
        OpKind::MatMul, {Tensor::zeros(DType::Fp32, {2, 3}), Tensor::zeros(DType::Fp32, {3, 1})});
}

TEST(Interpreter, ReadsConstantsFromTheGraph) {
    // y = relu(x * w) with w a constant [2] vector: [1,-1; 2,3] * [1,2] = [-1, 8] -> [0, 8]
    Graph graph;
    const ValueId x = graph.addValue(Value{"x", DType::Fp32, {2, 2}, std::nullopt, -1, {}});
    const ValueId w = graph.addValue(Value{"w", DType::Fp32, {2}, fp32({2}, {1, 2}), -1, {}});
    const ValueId h = graph.addValue(Value{"h", DType::Fp32, {}, std::nullopt, 0, {}});
    const ValueId y = graph.addValue(Value{"y", DType::Fp32, {}, std::nullopt, 1, {}});
    graph.inputs = {x};
    graph.outputs = {y};
    graph.nodes.push_back(Node{"mm", OpKind::MatMul, {x, w}, {h}, {}});
    graph.nodes.push_back(Node{"act", OpKind::Relu, {h}, {y}, {}});
    for (const Node& node : graph.nodes) opInfo(node.kind).inferTypes(graph, node);
    verifyGraph(graph);

    const std::vector<Tensor> outputs = interpretGraph(graph, {{"x", fp32({2, 2}, {1, -1, 2, 3})}});
    ASSERT_EQ(outputs.size(), 1u);
    testing::expectTensorEq(outputs[0], fp32({2}, {0, 8}));
}

TEST(Interpreter, NamesAMissingInput) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  interpretGraph(twoInputMatMul(), {{"in0", Tensor::zeros(DType::Fp32, {2, 3})}});
              }),
              "input 'in1' is missing (graph inputs: in0, in1)");
}

TEST(Interpreter, RejectsAnInputOfTheWrongShapeOrDType) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  interpretGraph(twoInputMatMul(), {{"in0", Tensor::zeros(DType::Fp32, {3, 2})},
                                                    {"in1", Tensor::zeros(DType::Fp32, {3, 1})}});
              }),
              "input 'in0': expected fp32[2,3], got fp32[3,2]");
    EXPECT_EQ(testing::inputErrorOf([] {
                  interpretGraph(twoInputMatMul(), {{"in0", Tensor::zeros(DType::Fp32, {2, 3})},
                                                    {"in1", Tensor::zeros(DType::Int32, {3, 1})}});
              }),
              "input 'in1': expected fp32[3,1], got int32[3,1]");
}

TEST(Interpreter, RejectsAnInputTheGraphDoesNotHave) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  interpretGraph(twoInputMatMul(), {{"in0", Tensor::zeros(DType::Fp32, {2, 3})},
                                                    {"in1", Tensor::zeros(DType::Fp32, {3, 1})},
                                                    {"extra", Tensor::zeros(DType::Fp32, {1})}});
              }),
              "'extra' is not a graph input (graph inputs: in0, in1)");
}

TEST(GraphAttributes, ReadIntsAndFloatsWithDefaultsAndCheckTheirType) {
    const Node node{"fc",
                    OpKind::Gemm,
                    {},
                    {},
                    {{"alpha", 0.25}, {"transA", int64_t{1}}, {"beta", int64_t{3}}}};
    EXPECT_EQ(node.intAttr("transA", 0), 1);
    EXPECT_EQ(node.intAttr("transB", 0), 0);
    EXPECT_EQ(node.floatAttr("alpha", 1.0), 0.25);
    EXPECT_EQ(node.floatAttr("beta", 1.0), 3.0);
    EXPECT_EQ(node.floatAttr("gamma", 1.5), 1.5);
    EXPECT_EQ(testing::inputErrorOf([&] { node.intAttr("alpha", 0); }),
              "op 'fc' (Gemm): attribute 'alpha' must be an int, but it is a float");
}

}  // namespace
}  // namespace npusim::compiler
