// The graph IR text reads back: every ONNX backend model, as imported and after the graph
// passes, prints the same after a parse; invalid text fails with a located, specific error.
#include <gtest/gtest.h>

#include "arch/error.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/graph/parser.h"
#include "compiler/graph/printer.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

const std::filesystem::path kTestData = NPUSIM_ONNX_TESTDATA;

TEST(Parser, EveryBackendModelRoundTrips) {
    int models = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kTestData)) {
        Graph graph;
        try {
            graph = importOnnx(entry.path() / "model.onnx");
        } catch (const InputError&) {
            continue;  // a model the frontend refuses, or whose shapes need its inputs
        }
        ++models;
        SCOPED_TRACE(entry.path().filename().string());
        const std::string imported = printGraph(graph);
        ASSERT_EQ(printGraph(parseGraph(imported)), imported);
        for (const GraphPass& pass : graphPasses()) pass.run(graph);
        const std::string lowered = printGraph(graph);
        ASSERT_EQ(printGraph(parseGraph(lowered)), lowered);
    }
    EXPECT_GT(models, 500);
}

TEST(Parser, ReadsDataAndOptionalParts) {
    const Graph graph = parseGraph(R"(
        // a comment
        graph @"my graph"(%x: fp32[2,3]) -> (%y: fp32[3,2], %d: int64[]) attributes {opset = 13} {
          %w = constant fp32[40,40]
          %d = constant dense<int64[]: [-7]>
          %max = constant dense<fp32[]: [0.5]>
          %t = Transpose(%x) {name = "t", perm = [1, 0]}
          %y = Clip(%t, none, %max) {name = "clip"}
          return %y, %d
        })");
    EXPECT_EQ(graph.name, "my graph");
    EXPECT_EQ(graph.opset, 13);
    ASSERT_EQ(graph.nodes.size(), 2u);
    EXPECT_EQ(graph.nodes[1].inputs[1], kNoValue);
    EXPECT_EQ(std::get<std::vector<int64_t>>(graph.nodes[0].attributes.at("perm")), (std::vector<int64_t>{1, 0}));
    EXPECT_EQ(graph.value(graph.outputs[1]).constant->as<int64_t>()[0], -7);
}

TEST(Parser, InvalidTextIsLocated) {
    const std::string header = "graph @g(%x: fp32[2]) -> (%y: fp32[2]) {\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {header + "  %y = Frobnicate(%x)\n  return %y\n}", "line 2, column 8: unknown op 'Frobnicate'"},
        {header + "  %y = Relu(%z)\n  return %y\n}", "line 2, column 14: %z is used before it is defined"},
        {header + "  %x = Relu(%x)\n  return %x\n}", "line 2, column 4: %x is defined twice"},
        {header + "  %y = Add(%x)\n  return %y\n}", "line 2, column 8: op 'y' (Add)"},
        {header + "  %y = Relu(%x {name = \"r\"}\n  return %y\n}", "line 2, column 16: expected ')'"},
        {header + "  %y = Relu(%x) {name = \"r}\n  return %y\n}", "unterminated string"},
        {header + "  %c = constant dense<fp32[2]: [1.0]>\n  %y = Add(%x, %c)\n  return %y\n}",
         "fp32[2] needs 2 elements, got 1"},
        {header + "  %c = constant fp33[2]\n  %y = Add(%x, %c)\n  return %y\n}", "unknown element type 'fp33'"},
        {header + "  %y = Relu(%x)\n  return %x\n}", "output 0 is declared %y: fp32[2] but returns %x: fp32[2]"},
        {header + "  %y = Relu(%x)\n  return %y\n}\nextra", "line 5, column 1: text after the graph's closing brace"},
        {header + "  %y = Relu(%x)\n", "expected '%', found the end of the text"},
        {header + "  %y = Relu(%x)\n  return none\n}", "line 3, column 10: a graph returns values, not none"},
        {header + "  %c = constant dense<int64[1]: [1.5]>\n  %y = Relu(%x)\n  return %y\n}",
         "int64 elements must be integers"},
        {header + "  %a = Relu(%x) {name = \"r\"}\n  %y = Relu(%a) {name = \"r\"}\n  return %y\n}",
         "line 3, column 8: two nodes are named \"r\""},
        {header + "  %c = constant fp32[99999999999,99999999999]\n  %y = Relu(%x)\n  return %y\n}",
         "a dim must be in [0, 4294967296]"},
    };
    for (const auto& [text, message] : cases) {
        SCOPED_TRACE(text);
        const std::string error = testing::inputErrorOf([&] { parseGraph(text); });
        EXPECT_NE(error.find(message), std::string::npos) << error;
    }
}

}  // namespace
}  // namespace npusim::compiler
