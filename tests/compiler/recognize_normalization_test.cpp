// recognize-normalization: layer and RMS normalisation spelled out op by op become one op that
// computes the same, and a pattern whose intermediate is read elsewhere is left alone.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/verifier.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

/// A graph builder with the means these patterns take: over the last axis, dims kept.
class Builder : public testing::GraphBuilder {
public:
    Builder() : GraphBuilder("norm", 13) {}
    ValueId input(const std::string& name, Shape shape) { return GraphBuilder::input(name, DType::Fp32, std::move(shape)); }
    ValueId mean(const std::string& name, ValueId x) {
        return op(OpKind::ReduceMean, name, {x}, {{"axes", std::vector<int64_t>{-1}}});
    }
};

Tensor scalar(float v) {
    Tensor t = Tensor::zeros(DType::Fp32, {});
    t.as<float>()[0] = v;
    return t;
}

void expectRecognized(Graph graph, OpKind kind, size_t nodesAfter) {
    const Graph source = graph;
    recognizeNormalization(graph);
    verifyGraph(graph);
    ASSERT_EQ(graph.nodes.size(), nodesAfter);
    EXPECT_TRUE(std::any_of(graph.nodes.begin(), graph.nodes.end(), [&](const Node& n) { return n.kind == kind; }));
    const std::map<std::string, Tensor> inputs = {{"x", testing::randomFp32(graph.value(graph.inputs[0]).shape, 3, -2.0f, 2.0f)}};
    testing::expectTensorNear(interpretGraph(graph, inputs).at(0), interpretGraph(source, inputs).at(0), 1e-5);
}

TEST(RecognizeNormalization, LayerNormWithPowOrMulAndAnAffineTail) {
    for (bool pow : {true, false}) {
        Builder b;
        const ValueId x = b.input("x", {4, 6, 8});
        const ValueId d = b.op(OpKind::Sub, "sub", {x, b.mean("mean", x)});
        const ValueId sq = pow ? b.op(OpKind::Pow, "pow", {d, b.constant("two", scalar(2))}) : b.op(OpKind::Mul, "sq", {d, d});
        const ValueId var = b.mean("var", sq);
        const ValueId root = b.op(OpKind::Sqrt, "sqrt", {b.op(OpKind::Add, "add_eps", {var, b.constant("eps", scalar(1e-5f))})});
        const ValueId n = b.op(OpKind::Div, "div", {d, root});
        const ValueId y = b.op(OpKind::Mul, "gamma_mul", {n, b.constant("gamma", testing::randomFp32({8}, 1))});
        const ValueId z = b.op(OpKind::Add, "beta_add", {y, b.constant("beta", testing::randomFp32({8}, 2))});
        expectRecognized(b.finish({z}), OpKind::LayerNormalization, 1);
    }
}

TEST(RecognizeNormalization, RmsNormWithAndWithoutAGain) {
    for (bool gain : {true, false}) {
        Builder b;
        const ValueId x = b.input("x", {5, 16});
        const ValueId ms = b.mean("ms", b.op(OpKind::Mul, "sq", {x, x}));
        const ValueId root = b.op(OpKind::Sqrt, "sqrt", {b.op(OpKind::Add, "add_eps", {ms, b.constant("eps", scalar(1e-6f))})});
        ValueId y = b.op(OpKind::Div, "div", {x, root});
        if (gain) y = b.op(OpKind::Mul, "gain_mul", {y, b.constant("gain", testing::randomFp32({16}, 4))});
        expectRecognized(b.finish({y}), OpKind::RmsNormalization, 1);
    }
}

TEST(RecognizeNormalization, LeavesAPatternWhoseIntermediateIsReadElsewhere) {
    Builder b;
    const ValueId x = b.input("x", {5, 16});
    const ValueId ms = b.mean("ms", b.op(OpKind::Mul, "sq", {x, x}));
    const ValueId root = b.op(OpKind::Sqrt, "sqrt", {b.op(OpKind::Add, "add_eps", {ms, b.constant("eps", scalar(1e-6f))})});
    const Graph source = b.finish({b.op(OpKind::Div, "div", {x, root}), ms});  // the mean square is an output too
    Graph graph = source;
    recognizeNormalization(graph);
    EXPECT_EQ(graph.nodes.size(), source.nodes.size());
}

}  // namespace
}  // namespace npusim::compiler
