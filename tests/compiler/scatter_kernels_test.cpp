// The ScatterElements, ScatterND and GatherND CPU kernels against the reference: every
// reduction, repeated and negative indices, batch dims; an index out of range stops them.
#include <gtest/gtest.h>

#include "graph_test_support.h"
#include "host_kernel_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

TEST(ScatterKernels, ScatterElementsMatchesTheReference) {
    const Tensor data = randomFp32({3, 4, 2}, 81);
    const Tensor indices = int64({2, 4, 2}, {0, 2, -1, 1, 1, 1, 0, 0, 2, 2, -3, 1, 0, 0, 1, 2});
    const Tensor updates = randomFp32({2, 4, 2}, 82);
    for (const char* reduction : {"none", "add", "mul", "max", "min"}) {
        SCOPED_TRACE(reduction);
        for (OpKind kind : {OpKind::ScatterElements, OpKind::Scatter}) {
            if (kind == OpKind::Scatter && std::string(reduction) != "none") continue;
            std::map<std::string, Attribute> attributes = {{"axis", int64_t{0}}};
            if (kind == OpKind::ScatterElements) attributes["reduction"] = std::string(reduction);
            expectKernelMatchesReference(singleOpGraph(kind, {data, indices, updates}, attributes),
                                         {{"in0", data}, {"in1", indices}, {"in2", updates}});
        }
    }
    const Tensor ints = smallIntegers(DType::Int8, {2, 5}, 83, 20);
    const Tensor columns = int32({2, 2}, {4, 4, 0, -5});
    const Tensor values = smallIntegers(DType::Int8, {2, 2}, 84, 20);
    expectKernelMatchesReference(
        singleOpGraph(OpKind::ScatterElements, {ints, columns, values}, {{"axis", int64_t{1}}, {"reduction", std::string("add")}}),
        {{"in0", ints}, {"in1", columns}, {"in2", values}});
}

TEST(ScatterKernels, ScatterNdAndGatherNdMatchTheReference) {
    const Tensor data = randomFp32({4, 3, 2}, 85);
    const Tensor pairs = int64({3, 2}, {0, 1, -1, 2, 0, 1});
    const Tensor updates = randomFp32({3, 2}, 86);
    for (const char* reduction : {"none", "add", "mul", "max", "min"}) {
        SCOPED_TRACE(reduction);
        expectKernelMatchesReference(
            singleOpGraph(OpKind::ScatterND, {data, pairs, updates}, {{"reduction", std::string(reduction)}}),
            {{"in0", data}, {"in1", pairs}, {"in2", updates}});
    }
    expectKernelMatchesReference(singleOpGraph(OpKind::GatherND, {data, pairs}), {{"in0", data}, {"in1", pairs}});
    const Tensor rows = int64({2, 2, 1}, {2, 0, -1, 1});
    expectKernelMatchesReference(singleOpGraph(OpKind::GatherND, {data, rows}), {{"in0", data}, {"in1", rows}});
    // batch_dims 1: each of the 4 entries picks within its own [3, 2].
    const Tensor perEntry = int64({4, 2, 2}, {0, 0, 2, 1, 1, 1, -1, 0, 2, 0, 0, 1, 1, 0, 2, 1});
    expectKernelMatchesReference(singleOpGraph(OpKind::GatherND, {data, perEntry}, {{"batch_dims", int64_t{1}}}),
                                 {{"in0", data}, {"in1", perEntry}});
}

TEST(ScatterKernels, MaxUnpoolMatchesTheReference) {
    const Tensor x = randomFp32({2, 2, 2, 3}, 89);
    const Tensor indices = int64({2, 2, 2, 3}, {0, 3, 5, 12, 14, 17, 40, 21, 23, 30, 33, 35, 36, 39, 41, 48, 50, 53, 54, 57, 59, 66, 68, 71});
    const std::map<std::string, Attribute> pool = {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}};
    expectKernelMatchesReference(singleOpGraph(OpKind::MaxUnpool, {x, indices}, pool), {{"in0", x}, {"in1", indices}});
    const Graph padded = constantOperandGraph(OpKind::MaxUnpool, {x, indices, int64({4}, {2, 2, 5, 7})}, {2}, pool);
    expectKernelMatchesReference(padded, {{"in0", x}, {"in1", indices}});
    EXPECT_EQ(kernelStatus(padded, {{"in0", x}, {"in1", Tensor::zeros(DType::Int64, {2, 2, 2, 3})}}), 0);
    Tensor beyond = indices;
    beyond.as<int64_t>()[5] = 96;  // the unpooled tensor [2, 2, 4, 6] holds 96
    EXPECT_EQ(kernelStatus(padded, {{"in0", x}, {"in1", beyond}}), 1);
}

TEST(ScatterKernels, AnIndexOutOfRangeStopsThem) {
    const Tensor data = randomFp32({4, 3}, 87);
    const Graph scatter = singleOpGraph(OpKind::ScatterND, {data, int64({1, 1}, {0}), randomFp32({1, 3}, 88)});
    EXPECT_EQ(kernelStatus(scatter, {{"in0", data}, {"in1", int64({1, 1}, {4})}, {"in2", randomFp32({1, 3}, 88)}}), 1);
    const Graph gather = singleOpGraph(OpKind::GatherND, {data, int64({1, 2}, {0, 0})});
    EXPECT_EQ(kernelStatus(gather, {{"in0", data}, {"in1", int64({1, 2}, {1, -4})}}), 1);
    EXPECT_EQ(kernelStatus(gather, {{"in0", data}, {"in1", int64({1, 2}, {3, -3})}}), 0);
}

}  // namespace
}  // namespace npusim::compiler
