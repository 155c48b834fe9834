// GridSample (every mode, padding and corner alignment) and RoiAlign (both coordinate modes,
// fixed and adaptive sampling) against PyTorch's and torchvision's results for the same inputs,
// MaxUnpool against hand-worked positions, and their located errors.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::expectTensorNear;
using testing::fp32;
using testing::inputErrorOf;
using testing::int64;
using testing::runOp;
using testing::singleOpGraph;

TEST(InterpreterSampling, GridSampleMatchesPyTorch) {
    // torch.nn.functional.grid_sample of [[1, 2, 3], [4, 5, 6]] at (-1.3, -1), (0.25, 0.4), (0.9, 1.2).
    const Tensor x = fp32({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor grid = fp32({1, 1, 3, 2}, {-1.3f, -1.0f, 0.25f, 0.4f, 0.9f, 1.2f});
    struct Case {
        const char *mode, *padding;
        int64_t alignCorners;
        std::vector<float> expected;
    };
    const Case cases[] = {
        {"bilinear", "zeros", 0, {0.025f, 5.075f, 1.17f}},        {"bilinear", "zeros", 1, {0.7f, 4.35f, 5.31f}},
        {"bilinear", "border", 0, {1.0f, 5.075f, 6.0f}},          {"bilinear", "border", 1, {1.0f, 4.35f, 5.9f}},
        {"bilinear", "reflection", 0, {1.0f, 5.075f, 6.0f}},      {"bilinear", "reflection", 1, {1.3f, 4.35f, 5.6f}},
        {"nearest", "zeros", 0, {0.0f, 5.0f, 0.0f}},              {"nearest", "zeros", 1, {1.0f, 5.0f, 6.0f}},
        {"nearest", "reflection", 0, {1.0f, 5.0f, 6.0f}},         {"bicubic", "zeros", 0, {0.0077087f, 5.9778585f, 1.2421620f}},
        {"bicubic", "zeros", 1, {0.6107506f, 5.4028273f, 5.9668541f}}, {"bicubic", "border", 0, {0.7169679f, 5.2242155f, 6.2526593f}},
        {"bicubic", "border", 1, {0.8897505f, 4.4950323f, 6.1070018f}}, {"bicubic", "reflection", 0, {0.4018743f, 5.2242155f, 6.6431274f}},
        {"bicubic", "reflection", 1, {1.1215003f, 4.7191877f, 5.9015017f}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.mode) + " " + c.padding + " align_corners " + std::to_string(c.alignCorners));
        expectTensorNear(runOp(OpKind::GridSample, {x, grid},
                               {{"mode", std::string(c.mode)}, {"padding_mode", std::string(c.padding)}, {"align_corners", c.alignCorners}}),
                         fp32({1, 1, 1, 3}, c.expected), 1e-5);
    }
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::GridSample, {x, grid}, {{"mode", std::string("cubic")}}); }),
              "op 'op' (GridSample): mode 'cubic' is not one of bilinear, nearest, bicubic");
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::GridSample, {x, fp32({1, 3, 2}, {0, 0, 0, 0, 0, 0})}); }),
              "op 'op' (GridSample): X must be [N, C, H, W] and grid [N, H_out, W_out, 2], got [1,1,2,3] and [1,3,2]");
}

TEST(InterpreterSampling, RoiAlignMatchesTorchvision) {
    // torchvision.ops.roi_align of 0..19 as [4, 5]: aligned = half_pixel, unaligned = output_half_pixel.
    std::vector<float> ramp(20);
    for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<float>(i);
    const Tensor x = fp32({1, 1, 4, 5}, ramp);
    const Tensor rois = fp32({2, 4}, {0.5f, 0.5f, 3.2f, 2.9f, -1.0f, 1.0f, 6.0f, 3.5f});
    const Tensor batch = int64({2}, {0, 0});
    const auto align = [&](const char* transform, int64_t ratio) {
        return runOp(OpKind::RoiAlign, {x, rois, batch},
                     {{"coordinate_transformation_mode", std::string(transform)}, {"sampling_ratio", ratio},
                      {"output_height", int64_t{2}}, {"output_width", int64_t{2}}});
    };
    expectTensorNear(align("half_pixel", 2), fp32({2, 1, 2, 2}, {3.675f, 5.025f, 9.675f, 11.025f, 6.1875f, 9.0625f, 12.4375f, 15.3125f}));
    expectTensorNear(align("half_pixel", 0), fp32({2, 1, 2, 2}, {3.675f, 5.025f, 9.675f, 11.025f, 4.78125f, 6.65625f, 9.46875f, 11.34375f}));
    expectTensorNear(align("output_half_pixel", 2),
                     fp32({2, 1, 2, 2}, {6.675f, 8.025f, 12.675f, 14.025f, 8.9375f, 5.75f, 14.71875f, 8.640625f}));
    expectTensorNear(align("output_half_pixel", 0),
                     fp32({2, 1, 2, 2}, {6.675f, 8.025f, 12.675f, 14.025f, 9.015625f, 8.78125f, 14.796875f, 13.1171875f}));
    EXPECT_EQ(inputErrorOf([&] { runOp(OpKind::RoiAlign, {x, rois, int64({2}, {0, 1})}); }),
              "op 'op' (RoiAlign): batch index 1 is outside [0, 1)");
    EXPECT_EQ(inputErrorOf([&] { singleOpGraph(OpKind::RoiAlign, {x, rois, batch}, {{"mode", std::string("sum")}}); }),
              "op 'op' (RoiAlign): mode 'sum' is not one of avg, max");
}

TEST(InterpreterSampling, MaxUnpoolPutsEachValueWhereItsIndexPoints) {
    // kernel 2, stride 2: [1, 2] x [2, 2] unpools to [4, 4]; indices 0, 3, 9, 14 are (0, 0),
    // (0, 3), (2, 1) and (3, 2) there.
    const Tensor x = fp32({1, 1, 2, 2}, {1, 2, 3, 4});
    const Tensor indices = int64({1, 1, 2, 2}, {0, 3, 9, 14});
    const std::map<std::string, Attribute> pool = {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}};
    std::vector<float> unpooled(16, 0), padded(25, 0);
    for (const auto& [at, value] : {std::pair{0, 1.0f}, {3, 2.0f}, {9, 3.0f}, {14, 4.0f}}) unpooled[at] = value;
    for (const auto& [at, value] : {std::pair{0, 1.0f}, {3, 2.0f}, {11, 3.0f}, {17, 4.0f}}) padded[at] = value;
    testing::expectTensorEq(runOp(OpKind::MaxUnpool, {x, indices}, pool), fp32({1, 1, 4, 4}, unpooled));
    testing::expectTensorEq(testing::runWithConstants(OpKind::MaxUnpool, {x, indices, int64({4}, {1, 1, 5, 5})}, {2}, pool).at(0),
                            fp32({1, 1, 5, 5}, padded));
    EXPECT_EQ(inputErrorOf([&] { runOp(OpKind::MaxUnpool, {x, int64({1, 1, 2, 2}, {0, 3, 9, 16})}, pool); }),
              "op 'op' (MaxUnpool): index 16 is outside the unpooled tensor [1,1,4,4]");
    EXPECT_EQ(inputErrorOf([&] { testing::runWithConstants(OpKind::MaxUnpool, {x, indices, int64({4}, {1, 1, 3, 5})}, {2}, pool); }),
              "op 'op' (MaxUnpool): output_shape [1,1,3,5] must keep N and C and hold the unpooled shape [1,1,4,4]");
}

}  // namespace
}  // namespace npusim::compiler
