// The NegativeLogLikelihoodLoss CPU kernel against the reference: every reduction, with and
// without weights and ignore_index, over [N, C] and [N, C, d1, d2]; a target outside the
// classes stops it.
#include <gtest/gtest.h>

#include "graph_test_support.h"
#include "host_kernel_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

TEST(LossKernels, NegativeLogLikelihoodMatchesTheReference) {
    const Tensor input = randomFp32({3, 5, 2, 2}, 31, -4.0f, 0.0f);
    const Tensor target = int64({3, 2, 2}, {0, 4, 2, 2, 1, 3, 3, 0, 4, 2, 1, 1});
    const Tensor weight = randomFp32({5}, 32, 0.1f, 2.0f);
    for (const char* reduction : {"none", "sum", "mean"}) {
        for (bool weighted : {false, true}) {
            for (bool ignoring : {false, true}) {
                SCOPED_TRACE(std::string(reduction) + (weighted ? " weighted" : "") + (ignoring ? " ignoring 2" : ""));
                std::map<std::string, Attribute> attributes = {{"reduction", std::string(reduction)}};
                if (ignoring) attributes["ignore_index"] = int64_t{2};
                std::vector<std::optional<Tensor>> operands = {input, target};
                std::map<std::string, Tensor> fed = {{"in0", input}, {"in1", target}};
                if (weighted) {
                    operands.push_back(weight);
                    fed["in2"] = weight;
                }
                expectKernelMatchesReference(singleOpGraph(OpKind::NegativeLogLikelihoodLoss, operands, attributes), fed);
            }
        }
    }
    // [N, C] with an ignored target outside the classes.
    const Tensor rows = randomFp32({4, 3}, 33, -3.0f, 0.0f);
    const Tensor labels = int64({4}, {2, -1, 0, 1});
    expectKernelMatchesReference(
        singleOpGraph(OpKind::NegativeLogLikelihoodLoss, {rows, labels}, {{"ignore_index", int64_t{-1}}}),
        {{"in0", rows}, {"in1", labels}});
}

TEST(LossKernels, ATargetOutsideTheClassesStopsTheKernel) {
    const Tensor rows = randomFp32({2, 3}, 34);
    const Graph graph = singleOpGraph(OpKind::NegativeLogLikelihoodLoss, {rows, int64({2}, {0, 0})},
                                      {{"ignore_index", int64_t{5}}});
    EXPECT_EQ(kernelStatus(graph, {{"in0", rows}, {"in1", int64({2}, {0, 5})}}), 0);
    EXPECT_EQ(kernelStatus(graph, {{"in0", rows}, {"in1", int64({2}, {3, 0})}}), 1);
    EXPECT_EQ(kernelStatus(graph, {{"in0", rows}, {"in1", int64({2}, {0, -1})}}), 1);
}

}  // namespace
}  // namespace npusim::compiler
