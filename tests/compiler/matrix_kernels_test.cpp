// The Det CPU kernel against the reference: random batches, row swaps, singular matrices, a 1x1
// matrix and fp16; its scratch memory shows in the kernel's text.
#include <gtest/gtest.h>

#include "compiler/cpu/host_kernels.h"
#include "graph_test_support.h"
#include "host_kernel_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

TEST(MatrixKernels, DetMatchesTheReference) {
    const Tensor batch = randomFp32({2, 3, 5, 5}, 71, -2.0f, 2.0f);
    expectKernelMatchesReference(singleOpGraph(OpKind::Det, {batch}), {{"in0", batch}});
    // A zero first pivot (a swap), a singular matrix (two equal rows) and a 1x1 matrix.
    const Tensor special = fp32({2, 3, 3}, {0, 1, 2, 1, 1, 2, 3, 1, 0, 1, 2, 3, 1, 2, 3, 4, 5, 6});
    expectKernelMatchesReference(singleOpGraph(OpKind::Det, {special}), {{"in0", special}});
    const Tensor single = fp32({1, 1}, {-3.5f});
    expectKernelMatchesReference(singleOpGraph(OpKind::Det, {single}), {{"in0", single}});
    Tensor half = Tensor::zeros(DType::Fp16, {4, 4});
    const uint16_t values[] = {0x3c00, 0x4000, 0x0000, 0x3800, 0xbc00, 0x3c00, 0x4200, 0x0000,
                               0x3400, 0x0000, 0x3c00, 0x4000, 0x4000, 0xb800, 0x0000, 0x3c00};
    std::copy(std::begin(values), std::end(values), half.as<uint16_t>().begin());
    expectKernelMatchesReference(singleOpGraph(OpKind::Det, {half}), {{"in0", half}});
}

TEST(MatrixKernels, DetWorksInScratchMemoryOfItsOwn) {
    const Tensor x = randomFp32({3, 3}, 72);
    const Graph graph = singleOpGraph(OpKind::Det, {x});
    const std::optional<cpu::HostKernel> host = cpu::hostKernelFor(graph, graph.nodes[0], 0);
    ASSERT_TRUE(host);
    const std::string text = cpu::printKernel(host->kernel);
    EXPECT_NE(text.find("(in %in0: fp32[9], out %out: fp32[1])"), std::string::npos) << text;
    EXPECT_NE(text.find("scratch %matrix: f64[9]"), std::string::npos) << text;
}

}  // namespace
}  // namespace npusim::compiler
