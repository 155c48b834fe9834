// Einsum: the reference semantics (explicit and implicit outputs, ellipses, diagonals, broadcast
// dims, integers), lower-einsum's rewrite of contractions into MatMuls that keeps the numbers,
// and the CPU kernel of what the rewrite leaves.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"
#include "host_kernel_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

Graph einsumGraph(const std::string& equation, const std::vector<Tensor>& operands) {
    return singleOpGraph(OpKind::Einsum, {operands.begin(), operands.end()}, {{"equation", equation}});
}

std::map<std::string, Tensor> feeds(const std::vector<Tensor>& operands) {
    std::map<std::string, Tensor> inputs;
    for (size_t i = 0; i < operands.size(); ++i) inputs.emplace("in" + std::to_string(i), operands[i]);
    return inputs;
}

size_t count(const Graph& graph, OpKind kind) {
    return static_cast<size_t>(std::count_if(graph.nodes.begin(), graph.nodes.end(), [&](const Node& n) { return n.kind == kind; }));
}

TEST(Einsum, ReferenceSemantics) {
    const Tensor a = fp32({2, 3}, {1, 2, 3, 4, 5, 6}), b = fp32({3, 2}, {1, 0, 0, 1, 1, 1});
    const std::vector<std::optional<Tensor>> ab{a, b};
    expectTensorNear(runOp(OpKind::Einsum, ab, {{"equation", std::string("ij,jk->ik")}}), fp32({2, 2}, {4, 5, 10, 11}));
    // Implicit output: the labels used once, in ASCII order ("ik").
    expectTensorNear(runOp(OpKind::Einsum, ab, {{"equation", std::string("ij, jk")}}), fp32({2, 2}, {4, 5, 10, 11}));
    const Tensor square = fp32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    expectTensorNear(runOp(OpKind::Einsum, {square}, {{"equation", std::string("ii->i")}}), fp32({3}, {1, 5, 9}));
    expectTensorNear(runOp(OpKind::Einsum, {square}, {{"equation", std::string("ii")}}), fp32({}, {15}));
    expectTensorNear(runOp(OpKind::Einsum, {a}, {{"equation", std::string("ij->ji")}}), fp32({3, 2}, {1, 4, 2, 5, 3, 6}));
    // The ellipsis broadcasts: a [2,1,2] batch against a [3,2] matrix's missing batch.
    const Tensor x = fp32({2, 1, 2}, {1, 2, 3, 4}), y = fp32({2, 2}, {1, 1, 0, 1});
    expectTensorNear(runOp(OpKind::Einsum, {x, y}, {{"equation", std::string("...ij,...jk->...ik")}}),
                     fp32({2, 1, 2}, {1, 3, 3, 7}));
    // Integers wrap.
    expectTensorNear(runOp(OpKind::Einsum, {int32({2}, {65536, 2}), int32({2}, {65536, 3})}, {{"equation", std::string("i,i")}}),
                     int32({}, {6}));
}

TEST(Einsum, EquationsThatDoNotFitTheirOperandsAreRefused) {
    const Tensor a = fp32({2, 3}, {1, 2, 3, 4, 5, 6});
    EXPECT_EQ(inputErrorOf([&] { einsumGraph("ijk->i", {a}); }),
              "op 'op' (Einsum): operand 0 'ijk' does not fit its shape [2,3]");
    EXPECT_EQ(inputErrorOf([&] { einsumGraph("ij,jk->ik", {a}); }),
              "op 'op' (Einsum): the equation names 2 operands, the node has 1");
    EXPECT_EQ(inputErrorOf([&] { einsumGraph("ij,ij->ij", {a, fp32({3, 2}, {1, 2, 3, 4, 5, 6})}); }),
              "op 'op' (Einsum): label 'i' has sizes 2 and 3");
    EXPECT_EQ(inputErrorOf([&] { einsumGraph("ij->iq", {a}); }),
              "op 'op' (Einsum): output label 'q' must appear once in the output and in some operand");
    EXPECT_EQ(inputErrorOf([&] { einsumGraph("i1->i", {fp32({2, 2}, {1, 2, 3, 4})}); }),
              "op 'op' (Einsum): 'i1' holds a label that is not a letter");
}

TEST(LowerEinsum, ContractionsBecomeMatMulsThatKeepTheNumbers) {
    struct Case {
        std::string equation;
        std::vector<Shape> shapes;
        size_t matmuls;
    };
    const std::vector<Case> cases = {
        {"ij,jk->ik", {{4, 5}, {5, 6}}, 1},
        {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, 1},
        {"bhqd,bhkd->bhqk", {{1, 2, 3, 4}, {1, 2, 5, 4}}, 1},  // attention scores
        {"bhqk,bhkd->bqhd", {{1, 2, 3, 5}, {1, 2, 5, 4}}, 1},
        {"i,i->", {{7}, {7}}, 1},
        {"i,j->ij", {{3}, {4}}, 1},
        {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}, 2},
        {"abc,cd->abd", {{2, 3, 4}, {4, 5}}, 1},
        {"ijk,k->i", {{2, 3, 4}, {4}}, 1},  // j summed before the product
        {"ij->ji", {{3, 4}}, 0},
        {"ij->", {{3, 4}}, 0},
    };
    uint32_t seed = 80;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.equation);
        std::vector<Tensor> operands;
        for (const Shape& shape : c.shapes) operands.push_back(randomFp32(shape, seed++));
        Graph graph = einsumGraph(c.equation, operands);
        const std::vector<Tensor> golden = interpretGraph(graph, feeds(operands));
        lowerEinsum(graph);
        EXPECT_EQ(count(graph, OpKind::Einsum), 0u);
        EXPECT_EQ(count(graph, OpKind::MatMul), c.matmuls);
        expectTensorNear(interpretGraph(graph, feeds(operands))[0], golden[0], 1e-5);
    }
}

TEST(LowerEinsum, DiagonalsBroadcastsAndIntegersStayForTheCpu) {
    const Tensor square = randomFp32({3, 3}, 90);
    const std::vector<std::pair<std::string, std::vector<Tensor>>> kept = {
        {"ii->i", {square}},
        {"...ij,...jk->...ik", {randomFp32({2, 3, 3}, 91), randomFp32({1, 3, 3}, 92)}},
        {"ij,ij->ij", {randomFp32({2, 3}, 93), randomFp32({1, 3}, 94)}},
        {"ij,jk", {int32({2, 2}, {1, 2, 3, 4}), int32({2, 2}, {5, 6, 7, 8})}},
    };
    for (const auto& [equation, operands] : kept) {
        SCOPED_TRACE(equation);
        Graph graph = einsumGraph(equation, operands);
        lowerEinsum(graph);
        EXPECT_EQ(count(graph, OpKind::Einsum), 1u);
        expectKernelMatchesReference(graph, feeds(operands));
    }
}

}  // namespace
}  // namespace npusim::compiler
