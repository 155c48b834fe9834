// The data-movement ops as strided copies: carrying the copies out on host tensors gives the
// reference interpreter's outputs, element for element, for every op and its variants.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/strided_copy.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::constantOperandGraph;
using testing::int64;

/// A tensor of `shape` holding 0, 1, 2, ...: every element tells where it came from.
Tensor iota(Shape shape) {
    std::vector<float> values(static_cast<size_t>(elementCount(shape)));
    std::iota(values.begin(), values.end(), 0.0f);
    return testing::fp32(std::move(shape), values);
}

/// The outputs of the graph's single node, written only by its strided copies; every output
/// element must be written exactly once.
std::vector<Tensor> applyCopies(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
    const Node& node = graph.nodes.at(0);
    const std::optional<std::vector<StridedCopy>> copies = stridedCopies(graph, node);
    EXPECT_TRUE(copies.has_value());
    std::vector<Tensor> outputs;
    std::vector<std::vector<int>> writes;
    for (ValueId id : node.outputs) {
        const Value& value = graph.value(id);
        outputs.push_back(Tensor::zeros(value.dtype, value.shape));
        writes.emplace_back(static_cast<size_t>(elementCount(value.shape)), 0);
    }
    for (const StridedCopy& copy : copies.value_or(std::vector<StridedCopy>{})) {
        const Value& in = graph.value(node.inputs[copy.input]);
        const Tensor& source = copy.fill ? *copy.fill : in.constant ? *in.constant : inputs.at(in.name);
        Tensor& target = outputs[copy.output];
        const size_t size = dtypeSize(source.dtype);
        std::vector<int64_t> index(copy.dims.size(), 0);
        for (int64_t n = 0; n < elementCount(copy.dims); ++n) {
            int64_t from = copy.inputOffset, to = copy.outputOffset;
            for (size_t d = 0; d < index.size(); ++d) {
                from += index[d] * copy.inputStrides[d];
                to += index[d] * copy.outputStrides[d];
            }
            std::memcpy(target.bytes.data() + to * size, source.bytes.data() + from * size, size);
            ++writes[copy.output].at(static_cast<size_t>(to));
            for (size_t d = index.size(); d-- > 0;) {
                if (++index[d] < copy.dims[d]) break;
                index[d] = 0;
            }
        }
    }
    for (const std::vector<int>& counts : writes) {
        EXPECT_TRUE(std::all_of(counts.begin(), counts.end(), [](int c) { return c == 1; }))
            << "an output element is written other than once";
    }
    return outputs;
}

/// Builds the op with the inputs in `constants` as constants, and compares the copies with the
/// reference semantics.
void expectCopiesMatch(OpKind kind, const std::vector<std::optional<Tensor>>& inputs, const std::set<size_t>& constants,
                       std::map<std::string, Attribute> attributes = {}, size_t outputs = 1) {
    const Graph graph = constantOperandGraph(kind, inputs, constants, std::move(attributes), outputs);
    std::map<std::string, Tensor> fed;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i] && !constants.contains(i)) fed["in" + std::to_string(i)] = *inputs[i];
    }
    const std::vector<Tensor> expected = interpretGraph(graph, fed);
    const std::vector<Tensor> actual = applyCopies(graph, fed);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) testing::expectTensorEq(actual[i], expected[i]);
}

TEST(StridedCopies, ReshapeFamilyIsOneContiguousRun) {
    expectCopiesMatch(OpKind::Reshape, {iota({2, 3, 4}), int64({2}, {4, -1})}, {1});
    expectCopiesMatch(OpKind::Flatten, {iota({2, 3, 4})}, {}, {{"axis", int64_t{2}}});
    expectCopiesMatch(OpKind::Squeeze, {iota({1, 3, 1}), int64({1}, {0})}, {1});
    expectCopiesMatch(OpKind::Unsqueeze, {iota({3, 2}), int64({2}, {0, 3})}, {1});
    const Graph graph = constantOperandGraph(OpKind::Reshape, {iota({2, 3, 4}), int64({1}, {24})}, {1});
    EXPECT_EQ(stridedCopies(graph, graph.nodes[0])->size(), 1u);
}

TEST(StridedCopies, TransposeAndBlockPermutes) {
    expectCopiesMatch(OpKind::Transpose, {iota({2, 3, 4})}, {});
    expectCopiesMatch(OpKind::Transpose, {iota({2, 3, 4, 5})}, {}, {{"perm", std::vector<int64_t>{0, 2, 3, 1}}});
    expectCopiesMatch(OpKind::DepthToSpace, {iota({2, 8, 3, 2})}, {}, {{"blocksize", int64_t{2}}});
    expectCopiesMatch(OpKind::DepthToSpace, {iota({1, 8, 2, 3})}, {},
                      {{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}});
    expectCopiesMatch(OpKind::SpaceToDepth, {iota({2, 3, 4, 6})}, {}, {{"blocksize", int64_t{2}}});
}

TEST(StridedCopies, ConcatWritesEachInputAtItsOffset) {
    expectCopiesMatch(OpKind::Concat, {iota({2, 3, 2}), iota({2, 1, 2}), iota({2, 4, 2})}, {}, {{"axis", int64_t{1}}});
    expectCopiesMatch(OpKind::Concat, {iota({2, 3}), iota({0, 3}), iota({1, 3})}, {}, {{"axis", int64_t{0}}});
}

TEST(StridedCopies, SplitReadsEachOutputFromItsOffset) {
    expectCopiesMatch(OpKind::Split, {iota({4, 6}), int64({3}, {1, 0, 5})}, {1}, {{"axis", int64_t{-1}}}, 3);
    expectCopiesMatch(OpKind::Split, {iota({6, 2})}, {}, {}, 2);
}

TEST(StridedCopies, SliceWithStepsAndClampedBounds) {
    expectCopiesMatch(OpKind::Slice, {iota({5, 7}), int64({2}, {1, -6}), int64({2}, {100, 7}), int64({2}, {0, 1}),
                                      int64({2}, {2, 3})},
                      {1, 2, 3, 4});
    // A negative step walks backwards: the copy's input strides are negative.
    expectCopiesMatch(OpKind::Slice, {iota({4, 3}), int64({1}, {-1}), int64({1}, {-100}), int64({1}, {0}),
                                      int64({1}, {-2})},
                      {1, 2, 3, 4});
}

TEST(StridedCopies, GatherWithConstantIndicesCopiesRunsOfRows) {
    expectCopiesMatch(OpKind::Gather, {iota({5, 3}), int64({2, 3}, {0, 1, 2, 4, -1, 1})}, {1});
    expectCopiesMatch(OpKind::Gather, {iota({2, 5, 3}), int64({3}, {3, 4, 0})}, {1}, {{"axis", int64_t{1}}});
    const Graph runs = constantOperandGraph(OpKind::Gather, {iota({6, 2}), int64({4}, {1, 2, 3, 0})}, {1});
    EXPECT_EQ(stridedCopies(runs, runs.nodes[0])->size(), 2u);
    const Graph runtime = constantOperandGraph(OpKind::Gather, {iota({6, 2}), int64({1}, {1})}, {});
    EXPECT_FALSE(stridedCopies(runtime, runtime.nodes[0]).has_value());
}

TEST(StridedCopies, ExpandAndTileRepeatElements) {
    expectCopiesMatch(OpKind::Expand, {iota({3, 1}), int64({3}, {2, 3, 4})}, {1});
    expectCopiesMatch(OpKind::Tile, {iota({2, 3}), int64({2}, {3, 2})}, {1});
}

TEST(StridedCopies, PadFillsBordersAndCopiesTheKeptPart) {
    const Tensor x = iota({2, 3, 4});
    expectCopiesMatch(OpKind::Pad, {x, int64({6}, {0, 1, 2, 0, 2, 1}), testing::fp32({}, {-5})}, {1, 2});
    expectCopiesMatch(OpKind::Pad, {x, int64({6}, {0, -1, 3, 1, 0, -2})}, {1});  // crops and pads
    for (const char* mode : {"edge", "reflect"}) {
        expectCopiesMatch(OpKind::Pad, {x, int64({6}, {1, 2, 3, 1, 2, 3})}, {1}, {{"mode", std::string(mode)}});
    }
    // A constant value given at run time is read and repeated.
    expectCopiesMatch(OpKind::Pad, {x, int64({6}, {0, 0, 1, 0, 0, 1}), testing::fp32({}, {7})}, {1});
}

TEST(StridedCopies, Im2ColCopiesEachTapAndFillsItsPadding) {
    // 2-D with padding, strides and dilations, one group of channels.
    expectCopiesMatch(OpKind::Im2Col, {iota({2, 4, 5, 6})}, {},
                      {{"kernel_shape", std::vector<int64_t>{3, 2}},
                       {"pads", std::vector<int64_t>{1, 0, 2, 1}},
                       {"strides", std::vector<int64_t>{2, 1}},
                       {"dilations", std::vector<int64_t>{1, 2}},
                       {"channel_begin", int64_t{1}},
                       {"channels", int64_t{2}}});
    // A transposed convolution's view: the input spread apart, the taps reversed.
    expectCopiesMatch(OpKind::Im2Col, {iota({1, 2, 4, 3})}, {},
                      {{"kernel_shape", std::vector<int64_t>{3, 2}},
                       {"pads", std::vector<int64_t>{2, 1, 1, 2}},
                       {"input_dilations", std::vector<int64_t>{2, 3}},
                       {"flip", int64_t{1}}});
    // 1-D, SAME_UPPER.
    expectCopiesMatch(OpKind::Im2Col, {iota({1, 3, 7})}, {},
                      {{"kernel_shape", std::vector<int64_t>{4}}, {"auto_pad", std::string("SAME_UPPER")}});
}

TEST(StridedCopies, InferenceDropoutPassesXAndAnAllTrueMask) {
    expectCopiesMatch(OpKind::Dropout, {iota({2, 3})}, {}, {}, 2);
}

TEST(StridedCopies, TriluCopiesTheTriangleAndFillsTheRest) {
    for (int64_t upper : {0, 1}) {
        for (int64_t k : {-2, 0, 1, 9}) {
            expectCopiesMatch(OpKind::Trilu, {iota({2, 4, 5}), int64({}, {k})}, {1}, {{"upper", upper}});
        }
    }
    // Without k the main diagonal borders the triangle.
    expectCopiesMatch(OpKind::Trilu, {iota({3, 3})}, {});
}

TEST(StridedCopies, ComputingOpsHaveNone) {
    const Graph graph = constantOperandGraph(OpKind::Relu, {iota({2})}, {});
    EXPECT_FALSE(stridedCopies(graph, graph.nodes[0]).has_value());
}

}  // namespace
}  // namespace npusim::compiler
