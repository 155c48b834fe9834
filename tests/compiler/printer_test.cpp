// Graph IR text: header with typed inputs and outputs, constants, ops with sorted attributes,
// quoted names, absent optional inputs and round-tripping floats.
#include <gtest/gtest.h>

#include "compiler/graph/op_table.h"
#include "compiler/graph/printer.h"
#include "compiler/graph/verifier.h"

namespace npusim::compiler {
namespace {

TEST(Printer, PrintsASmallMlp) {
    Graph graph;
    graph.name = "mlp";
    auto add = [&](std::string name, Shape shape, bool constant, int producer) {
        std::optional<Tensor> data;
        if (constant) data = Tensor::zeros(DType::Fp32, shape);
        return graph.addValue(Value{std::move(name), DType::Fp32, shape, data, producer, {}});
    };
    const ValueId x = add("x", {1, 4}, false, -1);
    const ValueId w0 = add("w0", {4, 3}, true, -1);
    const ValueId b0 = add("b0", {3}, true, -1);
    const ValueId w1 = add("w1", {2, 3}, true, -1);
    const ValueId h = add("h", {}, false, 0);
    const ValueId act = add("h:relu", {}, false, 1);
    const ValueId y = add("y", {}, false, 2);
    graph.inputs = {x};
    graph.outputs = {y};
    graph.nodes.push_back(Node{"fc1", OpKind::Gemm, {x, w0, b0}, {h}, {{"alpha", 0.5}}});
    graph.nodes.push_back(Node{"act", OpKind::Relu, {h}, {act}, {}});
    graph.nodes.push_back(Node{"fc2",
                               OpKind::Gemm,
                               {act, w1, kNoValue},
                               {y},
                               {{"transB", int64_t{1}},
                                {"beta", static_cast<double>(0.35f)},
                                {"alpha", 1.0},
                                {"note", std::string("say \"hi\"")},
                                {"perm", std::vector<int64_t>{1, 0}},
                                {"scales", std::vector<double>{0.1, 2.0}}}});
    for (const Node& node : graph.nodes) opInfo(node.kind).inferTypes(graph, node);
    verifyGraph(graph);

    EXPECT_EQ(printGraph(graph),
              "graph @mlp(%x: fp32[1,4]) -> (%y: fp32[1,2]) {\n"
              "  %w0 = constant fp32[4,3]\n"
              "  %b0 = constant dense<fp32[3]: [0.0, 0.0, 0.0]>\n"
              "  %w1 = constant dense<fp32[2,3]: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]>\n"
              "  %h = Gemm(%x, %w0, %b0) {name = \"fc1\", alpha = 0.5}\n"
              "  %\"h:relu\" = Relu(%h) {name = \"act\"}\n"
              "  %y = Gemm(%\"h:relu\", %w1, none) {name = \"fc2\", alpha = 1.0, "
              "beta = 0.3499999940395355, note = \"say \\\"hi\\\"\", perm = [1, 0], "
              "scales = [0.1, 2.0], transB = 1}\n"
              "  return %y\n"
              "}\n");
}

}  // namespace
}  // namespace npusim::compiler
