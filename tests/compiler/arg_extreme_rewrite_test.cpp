// arg-extreme-to-reductions: the rewritten ArgMax and ArgMin give the reference's indices,
// ties included (first or last), with and without the reduced axis kept.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/verifier.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

void expectSameIndices(OpKind kind, const Tensor& data, std::map<std::string, Attribute> attributes) {
    const Graph source = testing::constantOperandGraph(kind, {data}, {}, std::move(attributes));
    Graph rewritten = source;
    argExtremeToReductions(rewritten);
    verifyGraph(rewritten);
    for (const Node& node : rewritten.nodes) EXPECT_NE(node.kind, kind);
    const std::map<std::string, Tensor> inputs = {{"in0", data}};
    testing::expectTensorEq(interpretGraph(rewritten, inputs).at(0), interpretGraph(source, inputs).at(0));
}

TEST(ArgExtremeToReductions, MatchesTheReferenceWithTies) {
    // Rows with repeated extremes, so first and last differ.
    const Tensor data = testing::fp32({3, 4}, {1, 5, 5, 0, -2, -2, 7, -2, 3, 3, 3, 3});
    const Tensor ints = testing::int32({2, 3}, {4, 9, 9, -1, -1, 2});
    for (OpKind kind : {OpKind::ArgMax, OpKind::ArgMin}) {
        for (int64_t axis : {0, 1, -1}) {
            for (int64_t keepdims : {0, 1}) {
                for (int64_t last : {0, 1}) {
                    SCOPED_TRACE("axis " + std::to_string(axis) + " keepdims " + std::to_string(keepdims) + " last " +
                                 std::to_string(last));
                    const std::map<std::string, Attribute> attributes = {
                        {"axis", axis}, {"keepdims", keepdims}, {"select_last_index", last}};
                    expectSameIndices(kind, data, attributes);
                    expectSameIndices(kind, ints, attributes);
                }
            }
        }
    }
}

}  // namespace
}  // namespace npusim::compiler
