// convolution-to-gemm: the rewritten graph (Im2Col, Gemm per group, reshape/transpose) computes
// what the Conv or ConvTranspose does, for padding, strides, dilations, groups, batches and
// weights given as constants or at run time.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/verifier.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

struct ConvCase {
    Shape x, w;
    std::map<std::string, Attribute> attributes;
    bool bias = true;
};

void expectRewriteMatches(OpKind kind, const ConvCase& c, const std::set<size_t>& constants) {
    const int64_t group = c.attributes.contains("group") ? std::get<int64_t>(c.attributes.at("group")) : 1;
    const int64_t outChannels = kind == OpKind::Conv ? c.w[0] : c.w[1] * group;
    const Tensor x = testing::randomFp32(c.x, 1), w = testing::randomFp32(c.w, 2), b = testing::randomFp32({outChannels}, 3);
    std::vector<std::optional<Tensor>> inputs = {x, w};
    if (c.bias) inputs.push_back(b);
    const Graph source = testing::constantOperandGraph(kind, inputs, constants, c.attributes);
    Graph rewritten = source;
    convolutionToGemm(rewritten);
    verifyGraph(rewritten);
    for (const Node& node : rewritten.nodes) EXPECT_NE(node.kind, kind);
    std::map<std::string, Tensor> fed;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (!constants.contains(i)) fed["in" + std::to_string(i)] = *inputs[i];
    }
    testing::expectTensorNear(interpretGraph(rewritten, fed).at(0), interpretGraph(source, fed).at(0), 1e-5);
}

TEST(ConvolutionToGemm, MatchesTheConvolution) {
    const std::vector<ConvCase> cases = {
        {{1, 3, 7, 6}, {4, 3, 3, 3}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}},
        {{2, 4, 9, 8}, {6, 2, 3, 2},
         {{"group", int64_t{2}}, {"strides", std::vector<int64_t>{2, 1}}, {"dilations", std::vector<int64_t>{1, 2}},
          {"pads", std::vector<int64_t>{0, 2, 1, 0}}}},
        {{1, 4, 5, 6}, {6, 2, 3, 3}, {{"group", int64_t{2}}, {"auto_pad", std::string("SAME_UPPER")}}, false},
        {{3, 2, 10}, {5, 2, 4}, {{"strides", std::vector<int64_t>{3}}}},
    };
    for (const ConvCase& c : cases) {
        SCOPED_TRACE(shapeString(c.x) + " * " + shapeString(c.w));
        expectRewriteMatches(OpKind::Conv, c, {1, 2});  // constant weights and bias
        expectRewriteMatches(OpKind::Conv, c, {});      // weights and bias at run time
    }
}

TEST(ConvolutionToGemm, LeavesDepthwiseConvolutionsWhole) {
    // One group per input channel: the vector unit runs it as one op (lower_depthwise.cpp).
    const Tensor x = testing::randomFp32({1, 4, 5, 5}, 1), w = testing::randomFp32({8, 1, 3, 3}, 2);
    Graph graph = testing::constantOperandGraph(OpKind::Conv, {x, w}, {1}, {{"group", int64_t{4}}});
    convolutionToGemm(graph);
    ASSERT_EQ(graph.nodes.size(), 1u);
    EXPECT_EQ(graph.nodes[0].kind, OpKind::Conv);
}

TEST(ConvolutionToGemm, MatchesTheTransposedConvolution) {
    const std::vector<ConvCase> cases = {
        {{1, 3, 4, 5}, {3, 2, 3, 3}, {{"strides", std::vector<int64_t>{2, 2}}, {"pads", std::vector<int64_t>{1, 0, 1, 1}}}},
        {{2, 4, 3, 4}, {4, 3, 2, 3},
         {{"group", int64_t{2}}, {"strides", std::vector<int64_t>{3, 1}}, {"dilations", std::vector<int64_t>{2, 1}},
          {"output_padding", std::vector<int64_t>{1, 0}}}},
        {{1, 2, 5}, {2, 3, 4}, {{"strides", std::vector<int64_t>{2}}, {"auto_pad", std::string("SAME_UPPER")}}, false},
    };
    for (const ConvCase& c : cases) {
        SCOPED_TRACE(shapeString(c.x) + " * " + shapeString(c.w));
        expectRewriteMatches(OpKind::ConvTranspose, c, {1, 2});
        expectRewriteMatches(OpKind::ConvTranspose, c, {});
    }
}

}  // namespace
}  // namespace npusim::compiler

namespace npusim::compiler {
namespace {

/// The rewrite, and then the integer-matmul pass, keep the op's exact results.
void expectIntegerRewriteMatches(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                                 const std::set<size_t>& constants, std::map<std::string, Attribute> attributes) {
    const Graph source = testing::constantOperandGraph(kind, inputs, constants, attributes);
    std::map<std::string, Tensor> fed;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i] && !constants.contains(i)) fed["in" + std::to_string(i)] = *inputs[i];
    }
    const Tensor expected = interpretGraph(source, fed).at(0);
    Graph rewritten = source;
    convolutionToGemm(rewritten);
    verifyGraph(rewritten);
    testing::expectTensorEq(interpretGraph(rewritten, fed).at(0), expected);
    decomposeIntegerMatMul(rewritten);
    verifyGraph(rewritten);
    testing::expectTensorEq(interpretGraph(rewritten, fed).at(0), expected);
}

TEST(ConvolutionToGemm, IntegerConvolutionsPadWithTheZeroPointAndRequantise) {
    const std::map<std::string, Attribute> padded = {{"pads", std::vector<int64_t>{1, 1, 1, 1}},
                                                     {"group", int64_t{2}}};
    const Tensor x = testing::randomBytes(DType::UInt8, {1, 4, 5, 5}, 1), w = testing::randomBytes(DType::UInt8, {6, 2, 3, 3}, 2);
    for (const std::set<size_t>& constants : {std::set<size_t>{}, std::set<size_t>{1, 2, 3}}) {
        expectIntegerRewriteMatches(OpKind::ConvInteger, {x, w, testing::randomBytes(DType::UInt8, {}, 3),
                                                          testing::randomBytes(DType::UInt8, {6}, 4)},
                                    constants, padded);
    }
    // QLinearConv: per-channel weight scales and zero points, an int32 bias.
    Tensor bias = Tensor::zeros(DType::Int32, {6});
    for (int32_t m = 0; m < 6; ++m) bias.as<int32_t>()[m] = 1000 * m - 2500;
    const std::vector<std::optional<Tensor>> q = {x, testing::randomFp32({}, 5, 0.001f, 0.01f), testing::randomBytes(DType::UInt8, {}, 6),
                                                  w, testing::randomFp32({6}, 7, 0.001f, 0.01f), testing::randomBytes(DType::UInt8, {6}, 8),
                                                  testing::randomFp32({}, 9, 0.001f, 0.01f), testing::randomBytes(DType::UInt8, {}, 10), bias};
    for (const std::set<size_t>& constants : {std::set<size_t>{}, std::set<size_t>{1, 2, 3, 4, 5, 6, 7, 8}}) {
        expectIntegerRewriteMatches(OpKind::QLinearConv, q, constants, padded);
    }
}

}  // namespace
}  // namespace npusim::compiler
