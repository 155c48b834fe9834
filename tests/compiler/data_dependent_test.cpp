// Data-dependent sizes: the reference semantics of NonZero, Compress, Unique and
// NonMaxSuppression (outputs at their bound, zero past the size, the size as a last output), their
// CPU kernels against it (padding included), folding on constants to the exact size, and the
// padding followed through the graph to the outputs it reaches or refused where it would mix.
#include <gtest/gtest.h>

#include "arch/error.h"
#include "compiler/graph/data_dependent.h"
#include "compiler/graph/interpreter.h"
#include "graph_test_support.h"
#include "host_kernel_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

std::vector<int64_t> ints(const Tensor& t) { return {t.as<int64_t>().begin(), t.as<int64_t>().end()}; }

TEST(DataDependent, NonZeroListsIndicesInRowMajorOrderPaddedToItsBound) {
    const std::vector<Tensor> out = runOpOutputs(OpKind::NonZero, {int64({2, 3}, {0, 5, 0, -1, 0, 2})}, {}, 2);
    EXPECT_EQ(out[0].shape, (Shape{2, 6}));
    EXPECT_EQ(ints(out[0]), (std::vector<int64_t>{0, 1, 1, 0, 0, 0, 1, 0, 2, 0, 0, 0}));
    EXPECT_EQ(ints(out[1]), (std::vector<int64_t>{3}));
}

TEST(DataDependent, CompressKeepsTheSlicesWhoseConditionHolds) {
    const Tensor x = int64({3, 2}, {1, 2, 3, 4, 5, 6});
    const std::vector<Tensor> rows = runOpOutputs(OpKind::Compress, {x, boolean({2}, {0, 1})}, {{"axis", int64_t{0}}}, 2);
    EXPECT_EQ(rows[0].shape, (Shape{2, 2}));  // the condition is shorter than the axis
    EXPECT_EQ(ints(rows[0]), (std::vector<int64_t>{3, 4, 0, 0}));
    EXPECT_EQ(ints(rows[1]), (std::vector<int64_t>{1}));
    const std::vector<Tensor> flat = runOpOutputs(OpKind::Compress, {x, boolean({5}, {1, 0, 0, 1, 1})}, {}, 2);
    EXPECT_EQ(ints(flat[0]), (std::vector<int64_t>{1, 4, 5, 0, 0}));
    EXPECT_EQ(ints(flat[1]), (std::vector<int64_t>{3}));
}

TEST(DataDependent, UniqueSortsCountsAndIndexesTheDistinctValues) {
    const Tensor x = int64({6}, {2, 1, 1, 3, 4, 3});
    const std::vector<Tensor> sorted = runOpOutputs(OpKind::Unique, {x}, {}, 5);
    EXPECT_EQ(ints(sorted[0]), (std::vector<int64_t>{1, 2, 3, 4, 0, 0}));
    EXPECT_EQ(ints(sorted[1]), (std::vector<int64_t>{1, 0, 3, 4, 0, 0}));
    EXPECT_EQ(ints(sorted[2]), (std::vector<int64_t>{1, 0, 0, 2, 3, 2}));
    EXPECT_EQ(ints(sorted[3]), (std::vector<int64_t>{2, 1, 2, 1, 0, 0}));
    EXPECT_EQ(ints(sorted[4]), (std::vector<int64_t>{4}));
    const std::vector<Tensor> asFound = runOpOutputs(OpKind::Unique, {x}, {{"sorted", int64_t{0}}}, 5);
    EXPECT_EQ(ints(asFound[0]), (std::vector<int64_t>{2, 1, 3, 4, 0, 0}));
    EXPECT_EQ(ints(asFound[2]), (std::vector<int64_t>{0, 1, 1, 2, 3, 2}));
}

TEST(DataDependent, NonMaxSuppressionKeepsTheBestBoxesOfEachClass) {
    // Boxes 0-2 overlap heavily, 3-4 likewise, 5 stands alone; at most 3 per class.
    const Tensor boxes = tensorOf(DType::Fp32, {1, 6, 4},
                                  std::vector<float>{0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f, 0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101});
    const Tensor scores = tensorOf(DType::Fp32, {1, 1, 6}, std::vector<float>{0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f});
    const std::vector<Tensor> out = runOpOutputs(OpKind::NonMaxSuppression,
                                                 {boxes, scores, int64({1}, {3}), tensorOf(DType::Fp32, {1}, std::vector<float>{0.5f}),
                                                  tensorOf(DType::Fp32, {1}, std::vector<float>{0.0f})},
                                                 {}, 2);
    EXPECT_EQ(out[0].shape, (Shape{6, 3}));
    EXPECT_EQ(ints(out[0]), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(ints(out[1]), (std::vector<int64_t>{3}));
}

TEST(DataDependent, CpuKernelsMatchTheReferenceIncludingThePadding) {
    const Tensor values = smallIntegers(DType::Fp32, {4, 5, 3}, 7, 6);  // ties and zeros
    expectKernelMatchesReference(multiOutputOpGraph(OpKind::NonZero, {values}, {}, 2), {{"in0", values}});
    const Tensor condition = boolean({4}, {1, 0, 1, 1});
    for (int64_t axis : {0, 1, -1}) {
        SCOPED_TRACE("Compress axis " + std::to_string(axis));
        expectKernelMatchesReference(multiOutputOpGraph(OpKind::Compress, {values, condition}, {{"axis", axis}}, 2),
                                     {{"in0", values}, {"in1", condition}});
    }
    expectKernelMatchesReference(multiOutputOpGraph(OpKind::Compress, {values, condition}, {}, 2), {{"in0", values}, {"in1", condition}});
    const Tensor small = smallIntegers(DType::Int32, {6, 2, 3}, 9, 2);  // repeated slices along every axis
    for (int64_t sorted : {0, 1}) {
        SCOPED_TRACE("Unique sorted " + std::to_string(sorted));
        expectKernelMatchesReference(multiOutputOpGraph(OpKind::Unique, {small}, {{"sorted", sorted}}, 5), {{"in0", small}});
        for (int64_t axis : {0, 1, 2}) {
            expectKernelMatchesReference(multiOutputOpGraph(OpKind::Unique, {small}, {{"sorted", sorted}, {"axis", axis}}, 5),
                                         {{"in0", small}});
        }
    }
    const Tensor boxes = randomFp32({2, 12, 4}, 11, 0.0f, 4.0f), scores = smallIntegers(DType::Fp32, {2, 3, 12}, 12, 8);
    const Tensor max = int64({1}, {4}), iou = tensorOf(DType::Fp32, {1}, std::vector<float>{0.2f});
    const Tensor threshold = tensorOf(DType::Fp32, {1}, std::vector<float>{-1.0f});
    for (int64_t center : {0, 1}) {
        SCOPED_TRACE("NonMaxSuppression center_point_box " + std::to_string(center));
        expectKernelMatchesReference(
            multiOutputOpGraph(OpKind::NonMaxSuppression, {boxes, scores, max, iou, threshold}, {{"center_point_box", center}}, 2),
            {{"in0", boxes}, {"in1", scores}, {"in2", max}, {"in3", iou}, {"in4", threshold}});
    }
    expectKernelMatchesReference(multiOutputOpGraph(OpKind::NonMaxSuppression, {boxes, scores, max}, {}, 2),
                                 {{"in0", boxes}, {"in1", scores}, {"in2", max}});
}

/// x[6] -> NonZero -> Transpose -> Cast(fp32) -> Relu, and a Reduce over the padded dim when asked.
Graph nonZeroChain(bool reduce) {
    GraphBuilder b("chain");
    const ValueId x = b.input("x", DType::Int64, {2, 3});
    const std::vector<ValueId> nonzero = b.ops(OpKind::NonZero, "nz", {x}, 2);
    const ValueId transposed = b.op(OpKind::Transpose, "t", {nonzero[0]}, {{"perm", std::vector<int64_t>{1, 0}}});
    const ValueId cast = b.op(OpKind::Cast, "c", {transposed}, {{"to", int64_t{1}}});
    ValueId y = b.op(OpKind::Relu, "y", {cast});
    if (reduce) y = b.op(OpKind::ReduceSum, "sum", {y}, {{"keepdims", int64_t{0}}});
    return b.finish({y});
}

TEST(DataDependent, ThePaddingIsFollowedToTheOutputsThatCarryIt) {
    Graph graph = nonZeroChain(false);
    markDataDependentOutputs(graph);
    const Value& y = graph.value(graph.outputs[0]);
    EXPECT_EQ(y.shape, (Shape{6, 2}));
    EXPECT_EQ(y.symbols, (std::vector<std::string>{"nz.1", ""}));
    // The interpreter cuts the output to the size it computed.
    const std::vector<Tensor> out = interpretGraph(graph, {{"x", int64({2, 3}, {0, 5, 0, -1, 0, 2})}});
    EXPECT_EQ(out[0].shape, (Shape{3, 2}));
}

TEST(DataDependent, AnOpThatWouldMixThePaddingIntoRealValuesIsRefused) {
    Graph graph = nonZeroChain(true);
    try {
        markDataDependentOutputs(graph);
        FAIL() << "expected a refusal";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("op 'sum' (ReduceSum)"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("the padding of op 'nz' (NonZero)"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace npusim::compiler
