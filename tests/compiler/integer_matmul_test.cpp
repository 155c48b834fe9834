// integer-matmul: the spelled-out zero points and requantisation compute exactly what
// MatMulInteger and QLinearMatMul do, for per-tensor, per-row and per-column zero points given
// at run time, batched or not; constant per-tensor zero points stay with the tensor unit.
#include <gtest/gtest.h>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/verifier.h"
#include "compiler/passes/graph_pass.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

Tensor u8(Shape shape, uint32_t seed) { return testing::randomBytes(DType::UInt8, std::move(shape), seed); }

void expectSameResults(OpKind kind, const std::vector<std::optional<Tensor>>& inputs, const std::set<size_t>& constants,
                       size_t expectedRewrites) {
    const Graph source = testing::constantOperandGraph(kind, inputs, constants);
    Graph rewritten = source;
    decomposeIntegerMatMul(rewritten);
    verifyGraph(rewritten);
    EXPECT_EQ(rewritten.nodes.size() > 1, expectedRewrites > 0) << rewritten.nodes.size();
    std::map<std::string, Tensor> fed;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i] && !constants.contains(i)) fed["in" + std::to_string(i)] = *inputs[i];
    }
    testing::expectTensorEq(interpretGraph(rewritten, fed).at(0), interpretGraph(source, fed).at(0));
}

TEST(IntegerMatMul, RuntimeAndPerAxisZeroPointsAreSpelledOut) {
    const Tensor a = u8({3, 5, 7}, 1), b = u8({7, 4}, 2);
    // Per-tensor zero points at run time, per-row and per-column ones, and only one of them.
    expectSameResults(OpKind::MatMulInteger, {a, b, u8({}, 3), u8({}, 4)}, {}, 1);
    expectSameResults(OpKind::MatMulInteger, {a, b, u8({5}, 5), u8({4}, 6)}, {2, 3}, 1);
    expectSameResults(OpKind::MatMulInteger, {a, b, std::nullopt, u8({4}, 7)}, {}, 1);
    // Constant per-tensor zero points stay on the tensor unit.
    expectSameResults(OpKind::MatMulInteger, {a, b, u8({}, 8), u8({}, 9)}, {2, 3}, 0);
}

TEST(IntegerMatMul, QLinearMatMulRequantisesExactly) {
    const Tensor a = u8({4, 6}, 11), b = u8({6, 3}, 12);
    const std::vector<std::optional<Tensor>> perTensor = {a, testing::randomFp32({}, 13, 0.01f, 0.1f), u8({}, 14),
                                                          b, testing::randomFp32({}, 15, 0.01f, 0.1f), u8({}, 16),
                                                          testing::randomFp32({}, 17, 0.5f, 2.0f), u8({}, 18)};
    expectSameResults(OpKind::QLinearMatMul, perTensor, {}, 1);
    std::vector<std::optional<Tensor>> perAxis = perTensor;
    perAxis[1] = testing::randomFp32({4}, 19, 0.01f, 0.1f);  // a_scale per row
    perAxis[2] = u8({4}, 20);           // a_zero_point per row
    perAxis[4] = testing::randomFp32({3}, 21, 0.01f, 0.1f);  // b_scale per column
    perAxis[5] = u8({3}, 22);
    expectSameResults(OpKind::QLinearMatMul, perAxis, {1, 2, 4, 5, 6, 7}, 1);
}

}  // namespace
}  // namespace npusim::compiler
