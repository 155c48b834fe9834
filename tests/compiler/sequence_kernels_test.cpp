// CPU kernels of sequence ops against the reference: ReverseSequence in both axis orders over
// trailing feature dims; a length outside the time axis stops it.
#include <gtest/gtest.h>

#include "graph_test_support.h"
#include "host_kernel_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

TEST(SequenceKernels, ReverseSequenceMatchesTheReference) {
    const Tensor timeMajor = randomFp32({5, 3, 2}, 41);
    const Tensor lengths = int64({3}, {5, 0, 3});
    expectKernelMatchesReference(singleOpGraph(OpKind::ReverseSequence, {timeMajor, lengths}),
                                 {{"in0", timeMajor}, {"in1", lengths}});
    const Tensor batchMajor = smallIntegers(DType::Int32, {3, 5, 2}, 42, 100);
    expectKernelMatchesReference(
        singleOpGraph(OpKind::ReverseSequence, {batchMajor, lengths}, {{"batch_axis", int64_t{0}}, {"time_axis", int64_t{1}}}),
        {{"in0", batchMajor}, {"in1", lengths}});
    const Graph graph = singleOpGraph(OpKind::ReverseSequence, {timeMajor, lengths});
    EXPECT_EQ(kernelStatus(graph, {{"in0", timeMajor}, {"in1", int64({3}, {5, 6, 3})}}), 1);
    EXPECT_EQ(kernelStatus(graph, {{"in0", timeMajor}, {"in1", int64({3}, {-1, 0, 3})}}), 1);
}

}  // namespace
}  // namespace npusim::compiler
