// A KV-cache decoder's outputs as a step needs them: a present that concatenates its past input
// with new entries becomes the new entries; a prefill's logits become their last position, the
// position-wise ops before them run for that position only, and the graph computes what it did.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/verifier.h"
#include "compiler/passes/kv_cache_outputs.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

ValueId addValue(Graph& graph, const std::string& name, Shape shape, int producer, std::optional<Tensor> constant = std::nullopt) {
    return graph.addValue(Value{name, DType::Fp32, std::move(shape), std::move(constant), producer, {}});
}

/// past [1, 2, 3, 4], keys [1, 2, 5, 4] and x [1, 5, 4] in; present = Concat(past, -keys) (the
/// new entries computed, as a step's are); logits = LayerNorm(x) @ W.
Graph decoderStep() {
    Graph graph;
    const ValueId past = addValue(graph, "past.0.key", {1, 2, 3, 4}, -1);
    const ValueId keys = addValue(graph, "keys", {1, 2, 5, 4}, -1);
    const ValueId x = addValue(graph, "x", {1, 5, 4}, -1);
    graph.inputs = {past, keys, x};
    const ValueId added = addValue(graph, "added", {1, 2, 5, 4}, 0);
    graph.nodes.push_back(Node{"negate", OpKind::Neg, {keys}, {added}, {}});
    const ValueId present = addValue(graph, "present.0.key", {1, 2, 8, 4}, 1);
    graph.nodes.push_back(Node{"concat", OpKind::Concat, {past, added}, {present}, {{"axis", int64_t{2}}}});
    const ValueId normed = addValue(graph, "normed", {1, 5, 4}, 2);
    graph.nodes.push_back(Node{"norm", OpKind::LayerNormalization,
                               {x, addValue(graph, "scale", {4}, -1, testing::randomFp32({4}, 2)),
                                addValue(graph, "bias", {4}, -1, testing::randomFp32({4}, 3))},
                               {normed}, {{"axis", int64_t{-1}}}});
    const ValueId logits = addValue(graph, "logits", {1, 5, 6}, 3);
    graph.nodes.push_back(Node{"head", OpKind::MatMul, {normed, addValue(graph, "w", {4, 6}, -1, testing::randomFp32({4, 6}, 4))},
                               {logits}, {}});
    graph.outputs = {logits, present};
    return graph;
}

TEST(KvCacheOutputs, LastPositionOnlyRunsTheHeadForTheLastPosition) {
    const Graph source = decoderStep();
    Graph graph = source;
    lastPositionOnly(graph, "logits", 1);
    verifyGraph(graph);
    EXPECT_EQ(graph.value(graph.outputs[0]).name, "logits");
    EXPECT_EQ(graph.value(graph.outputs[0]).shape, (Shape{1, 1, 6}));
    for (const Node& node : graph.nodes) {  // the norm and the head see one position
        if (node.kind == OpKind::MatMul || node.kind == OpKind::LayerNormalization) {
            EXPECT_EQ(graph.value(node.outputs[0]).shape[1], 1) << node.name;
        }
    }
    const std::map<std::string, Tensor> inputs = {{"past.0.key", testing::randomFp32({1, 2, 3, 4}, 5)},
                                                  {"keys", testing::randomFp32({1, 2, 5, 4}, 6)},
                                                  {"x", testing::randomFp32({1, 5, 4}, 7)}};
    const Tensor all = interpretGraph(source, inputs).at(0);
    Tensor last = Tensor::zeros(DType::Fp32, {1, 1, 6});
    std::copy_n(all.as<float>().begin() + 4 * 6, 6, last.as<float>().begin());
    testing::expectTensorNear(interpretGraph(graph, inputs).at(0), last, 1e-6);
    EXPECT_NE(testing::inputErrorOf([&] { lastPositionOnly(graph, "logits", 2); }).find("no position axis"), std::string::npos);
}

TEST(KvCacheOutputs, PresentsBecomeTheirNewEntries) {
    using Pairs = std::vector<std::pair<std::string, std::string>>;
    Graph graph = decoderStep();
    EXPECT_NE(testing::inputErrorOf([&] { presentsAsAppends(graph, Pairs{{"x", "present.0.key"}}); })
                  .find("is not the past input 'x' concatenated"),
              std::string::npos);
    presentsAsAppends(graph, Pairs{{"past.0.key", "present.0.key"}});
    verifyGraph(graph);
    const Value& present = graph.value(graph.outputs[1]);
    EXPECT_EQ(present.name, "present.0.key");
    EXPECT_EQ(present.shape, (Shape{1, 2, 5, 4}));
    const std::map<std::string, Tensor> inputs = {{"past.0.key", testing::randomFp32({1, 2, 3, 4}, 5)},
                                                  {"keys", testing::randomFp32({1, 2, 5, 4}, 6)},
                                                  {"x", testing::randomFp32({1, 5, 4}, 7)}};
    const Tensor keys = inputs.at("keys");
    Tensor negated = keys;
    for (float& v : negated.as<float>()) v = -v;
    testing::expectTensorEq(interpretGraph(graph, inputs).at(1), negated);
}

}  // namespace
}  // namespace npusim::compiler
