// Random ops draw numpy's numbers (MT19937 and its legacy sampling) at compile time: the draws
// match numpy's for the same seed, RandomUniformLike folds to a constant, and Bernoulli and a
// training Dropout become constants compared on the NPU with the same results as the reference.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/random_draws.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

TEST(RandomDraws, MatchNumpysLegacyGenerator) {
    RandomDraws zero(0);
    EXPECT_DOUBLE_EQ(zero.uniform(), 0.5488135039273248);  // np.random.seed(0); np.random.uniform()
    EXPECT_DOUBLE_EQ(zero.uniform(), 0.7151893663724195);
    RandomDraws normal(0);
    EXPECT_DOUBLE_EQ(normal.gauss(), 1.764052345967664);  // np.random.seed(0); np.random.normal()
    EXPECT_DOUBLE_EQ(normal.gauss(), 0.4001572083672233);
    EXPECT_DOUBLE_EQ(RandomDraws(7).uniform(), 0.07630828937395717);
}

TEST(RandomOps, UniformLikeDrawsInItsRangeAndTheSameForTheSameSeed) {
    const Tensor like = Tensor::zeros(DType::Fp32, {4, 5});
    const std::map<std::string, Attribute> attributes = {{"low", 2.0}, {"high", 3.0}, {"seed", 5.0}};
    const Tensor a = runOp(OpKind::RandomUniformLike, {like}, attributes), b = runOp(OpKind::RandomUniformLike, {like}, attributes);
    EXPECT_EQ(a.bytes, b.bytes);
    for (float v : a.as<float>()) {
        EXPECT_GE(v, 2.0f);
        EXPECT_LT(v, 3.0f);
    }
    EXPECT_NE(runOp(OpKind::RandomUniformLike, {like}, {{"seed", 6.0}}).bytes, a.bytes);
}

/// The graph of one node after draw-random-numbers, run by the interpreter, against the node itself.
void expectLoweringKeepsTheResults(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                                   const std::map<std::string, Attribute>& attributes, size_t outputs) {
    const Graph original = multiOutputOpGraph(kind, inputs, attributes, outputs);
    Graph lowered = original;
    drawRandomNumbers(lowered);
    for (const Node& node : lowered.nodes) EXPECT_NE(node.kind, kind) << "the op is still there";
    std::map<std::string, Tensor> fed;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i]) fed["in" + std::to_string(i)] = *inputs[i];
    }
    const std::vector<Tensor> expected = interpretGraph(original, fed), actual = interpretGraph(lowered, fed);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) expectTensorNear(actual[i], expected[i], 1e-6);
}

TEST(RandomOps, BernoulliAndTrainingDropoutBecomeConstantsComparedOnTheDevice) {
    const Tensor p = randomFp32({3, 7}, 3, 0.0f, 1.0f);
    expectLoweringKeepsTheResults(OpKind::Bernoulli, {p}, {{"seed", 2.0}}, 1);
    expectLoweringKeepsTheResults(OpKind::Bernoulli, {p}, {{"dtype", int64_t{6}}}, 1);  // int32
    const Tensor x = randomFp32({2, 3, 4}, 4);
    for (float ratio : {0.0f, 0.3f, 0.75f}) {
        SCOPED_TRACE(ratio);
        const Tensor r = tensorOf(DType::Fp32, {}, std::vector<float>{ratio});
        expectLoweringKeepsTheResults(OpKind::Dropout, {x, r, boolean({}, {1})}, {{"seed", int64_t{1}}}, 2);
        expectLoweringKeepsTheResults(OpKind::Dropout, {x, r, boolean({}, {0})}, {{"seed", int64_t{1}}}, 2);
    }
}

}  // namespace
}  // namespace npusim::compiler
