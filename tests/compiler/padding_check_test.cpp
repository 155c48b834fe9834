// checkPaddable: which models may run padded along a symbolic dim.
#include <gtest/gtest.h>

#include "compiler/graph/padding_check.h"
#include "compiler/graph/parser.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

/// The graph of `text` with input 0 and output 0 declaring `seq` on the given dims.
Graph withSymbols(const std::string& text, std::vector<std::string> in, std::vector<std::string> out) {
    Graph graph = parseGraph(text);
    graph.value(graph.inputs[0]).symbols = std::move(in);
    graph.value(graph.outputs[0]).symbols = std::move(out);
    return graph;
}

TEST(PaddingCheck, RowsThatStayApartMayBePadded) {
    // x[seq, 8] @ w[8, 4], transposed to [4, seq], softmax over the features.
    const Graph graph = withSymbols(R"(graph @g(%x: fp32[6,8]) -> (%y: fp32[4,6]) {
          %w = constant fp32[8,4]
          %h = MatMul(%x, %w) {name = "mm"}
          %s = Softmax(%h) {name = "softmax", axis = 1}
          %y = Transpose(%s) {name = "t", perm = [1, 0]}
          return %y
        })", {"seq", ""}, {"", "seq"});
    EXPECT_NO_THROW(checkPaddable(graph, "seq"));
}

TEST(PaddingCheck, MixingOpsAreNamed) {
    const std::string inner = R"(graph @g(%x: fp32[8,6]) -> (%y: fp32[8,4]) {
          %w = constant fp32[6,4]
          %y = MatMul(%x, %w) {name = "mm"}
          return %y
        })";
    EXPECT_NE(testing::inputErrorOf([&] { checkPaddable(withSymbols(inner, {"", "seq"}, {"", ""}), "seq"); })
                  .find("op 'mm' (MatMul): the MatMul's inner dim"),
              std::string::npos);
    const std::string reshape = R"(graph @g(%x: fp32[6,8]) -> (%y: fp32[48]) {
          %shape = constant dense<int64[1]: [48]>
          %y = Reshape(%x, %shape) {name = "flat"}
          return %y
        })";
    EXPECT_NE(testing::inputErrorOf([&] { checkPaddable(withSymbols(reshape, {"seq", ""}, {"seq"}), "seq"); })
                  .find("op 'flat' (Reshape)"),
              std::string::npos);
    // An output that does not declare the dim it carries cannot be cut back.
    const std::string relu = R"(graph @g(%x: fp32[6,8]) -> (%y: fp32[6,8]) {
          %y = Relu(%x) {name = "r"}
          return %y
        })";
    EXPECT_NE(testing::inputErrorOf([&] { checkPaddable(withSymbols(relu, {"seq", ""}, {"", ""}), "seq"); })
                  .find("output 'y' does not declare 'seq'"),
              std::string::npos);
}

}  // namespace
}  // namespace npusim::compiler
