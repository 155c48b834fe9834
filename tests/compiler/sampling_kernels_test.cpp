// The GridSample and RoiAlign CPU kernels against the reference: every mode, padding and corner
// alignment on grids reaching past the input; both coordinate modes, avg and max, fixed and
// adaptive sampling (a loop bounded at run time), regions partly outside the map.
#include <gtest/gtest.h>

#include "compiler/cpu/host_kernels.h"
#include "graph_test_support.h"
#include "host_kernel_test_support.h"

namespace npusim::compiler {
namespace {

using namespace testing;

TEST(SamplingKernels, GridSampleMatchesTheReference) {
    const Tensor x = randomFp32({2, 3, 4, 5}, 91);
    const Tensor grid = randomFp32({2, 3, 4, 2}, 92, -1.6f, 1.6f);
    for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
        for (const char* padding : {"zeros", "border", "reflection"}) {
            for (int64_t align : {0, 1}) {
                SCOPED_TRACE(std::string(mode) + " " + padding + " align_corners " + std::to_string(align));
                expectKernelMatchesReference(
                    singleOpGraph(OpKind::GridSample, {x, grid},
                                  {{"mode", std::string(mode)}, {"padding_mode", std::string(padding)}, {"align_corners", align}}),
                    {{"in0", x}, {"in1", grid}});
            }
        }
    }
}

TEST(SamplingKernels, RoiAlignMatchesTheReference) {
    const Tensor x = randomFp32({2, 3, 6, 7}, 93);
    const Tensor rois = fp32({3, 4}, {0.5f, 1.0f, 4.2f, 5.5f, -2.0f, -1.0f, 9.0f, 3.0f, 3.0f, 2.0f, 3.5f, 2.2f});
    const Tensor batch = int64({3}, {1, 0, 1});
    for (const char* transform : {"half_pixel", "output_half_pixel"}) {
        for (const char* mode : {"avg", "max"}) {
            for (int64_t ratio : {0, 2}) {
                SCOPED_TRACE(std::string(transform) + " " + mode + " sampling_ratio " + std::to_string(ratio));
                expectKernelMatchesReference(
                    singleOpGraph(OpKind::RoiAlign, {x, rois, batch},
                                  {{"coordinate_transformation_mode", std::string(transform)}, {"mode", std::string(mode)},
                                   {"sampling_ratio", ratio}, {"output_height", int64_t{3}}, {"output_width", int64_t{2}},
                                   {"spatial_scale", 0.9}}),
                    {{"in0", x}, {"in1", rois}, {"in2", batch}});
            }
        }
    }
    const Graph graph = singleOpGraph(OpKind::RoiAlign, {x, rois, batch});
    EXPECT_EQ(kernelStatus(graph, {{"in0", x}, {"in1", rois}, {"in2", int64({3}, {0, 2, 1})}}), 1);
    // Adaptive sampling loops up to a bound computed per region.
    const std::optional<cpu::HostKernel> host = cpu::hostKernelFor(graph, graph.nodes[0], 0);
    ASSERT_TRUE(host);
    EXPECT_NE(cpu::printKernel(host->kernel).find("(counted as 6)"), std::string::npos);
}

}  // namespace
}  // namespace npusim::compiler
