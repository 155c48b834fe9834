// Resize reference semantics against hand-computed results: every nearest_mode, linear with the
// half_pixel and align_corners transforms, cubic, tf_crop_and_resize with extrapolation, the
// opset-10 form, and the located errors for shape inputs.
#include <gtest/gtest.h>

#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using testing::fp32;
using testing::int64;

/// Resize of `x` with roi, scales and sizes (nullopt: absent) as constants.
Tensor resize(const Tensor& x, const std::optional<Tensor>& roi,
              const std::optional<Tensor>& scales, const std::optional<Tensor>& sizes,
              std::map<std::string, Attribute> attributes) {
    return testing::runWithConstants(OpKind::Resize, {x, roi, scales, sizes}, {1, 2, 3},
                                     std::move(attributes))
        .at(0);
}

TEST(InterpreterResize, NearestModesRoundTheAsymmetricCoordinate) {
    // Output o reads input o / 2 = 0, 0.5, 1, 1.5, 2, 2.5, clamped to the last element.
    const Tensor x = fp32({3}, {1, 2, 3});
    const auto nearest = [&](const std::string& mode) {
        return resize(x, std::nullopt, fp32({1}, {2}), std::nullopt,
                      {{"coordinate_transformation_mode", std::string("asymmetric")},
                       {"nearest_mode", mode}});
    };
    testing::expectTensorEq(nearest("round_prefer_floor"), fp32({6}, {1, 1, 2, 2, 3, 3}));
    testing::expectTensorEq(nearest("round_prefer_ceil"), fp32({6}, {1, 2, 2, 3, 3, 3}));
    testing::expectTensorEq(nearest("floor"), fp32({6}, {1, 1, 2, 2, 3, 3}));
    testing::expectTensorEq(nearest("ceil"), fp32({6}, {1, 2, 2, 3, 3, 3}));
}

TEST(InterpreterResize, LinearHalfPixelAndAlignCorners) {
    const Tensor x = fp32({1, 2}, {1, 3});
    // half_pixel: (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25; the ends clamp to the edges.
    testing::expectTensorEq(
        resize(x, std::nullopt, fp32({2}, {1, 2}), std::nullopt, {{"mode", std::string("linear")}}),
        fp32({1, 4}, {1, 1.5F, 2.5F, 3}));
    // align_corners with sizes: o * (2 - 1) / (3 - 1) = 0, 0.5, 1.
    testing::expectTensorEq(
        resize(x, std::nullopt, std::nullopt, int64({2}, {1, 3}),
               {{"mode", std::string("linear")},
                {"coordinate_transformation_mode", std::string("align_corners")}}),
        fp32({1, 3}, {1, 2, 3}));
}

TEST(InterpreterResize, CubicUsesKeysWeights) {
    // At half-way points the four neighbours weigh -3/32, 19/32, 19/32, -3/32 (a = -0.75); at
    // integer points the input element itself. Neighbours beyond the edges read the edge.
    testing::expectTensorEq(
        resize(fp32({4}, {0, 0, 1, 0}), std::nullopt, fp32({1}, {2}), std::nullopt,
               {{"mode", std::string("cubic")},
                {"coordinate_transformation_mode", std::string("asymmetric")}}),
        fp32({8}, {0, -0.09375F, 0, 0.59375F, 1, 0.59375F, 0, -0.09375F}));
}

TEST(InterpreterResize, TfCropAndResizeExtrapolatesOutsideTheInput) {
    const Tensor x = fp32({4}, {0, 10, 20, 30});
    const std::map<std::string, Attribute> crop{
        {"mode", std::string("linear")},
        {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
        {"extrapolation_value", 99.0}};
    // roi [0, 0.5]: o * 0.5 * 3 / 2 = 0, 0.75, 1.5.
    testing::expectTensorEq(resize(x, fp32({2}, {0, 0.5F}), std::nullopt, int64({1}, {3}), crop),
                            fp32({3}, {0, 7.5F, 15}));
    // roi [0.5, 1.5]: 1.5, 3, 4.5, and 4.5 lies beyond the last element.
    testing::expectTensorEq(resize(x, fp32({2}, {0.5F, 1.5F}), std::nullopt, int64({1}, {3}), crop),
                            fp32({3}, {15, 30, 99}));
}

TEST(InterpreterResize, OpsetTenFormSamplesAsymmetricFloor) {
    // Resize-10 (X, scales): output floor(2 * 1.5) = 3 reads floor(o / 1.5) = 0, 0, 1.
    testing::expectTensorEq(
        testing::runWithConstants(OpKind::Resize, {fp32({2}, {1, 2}), fp32({1}, {1.5F})}, {1})
            .at(0),
        fp32({3}, {1, 1, 2}));
}

TEST(InterpreterResize, UpsampleIsTheOpsetTenForm) {
    // Opset 9: scales as input 1; nearest rounds o / 1.5 down, linear interpolates at o / 2.
    testing::expectTensorEq(
        testing::runWithConstants(OpKind::Upsample, {fp32({2}, {1, 2}), fp32({1}, {1.5F})}, {1}).at(0),
        fp32({3}, {1, 1, 2}));
    testing::expectTensorEq(testing::runWithConstants(OpKind::Upsample, {fp32({2}, {1, 3}), fp32({1}, {2})}, {1},
                                                      {{"mode", std::string("linear")}})
                                .at(0),
                            fp32({4}, {1, 2, 3, 3}));
    // Opset 7: scales as an attribute.
    testing::expectTensorEq(testing::runOp(OpKind::Upsample, {fp32({1, 2}, {1, 2})}, {{"scales", std::vector<double>{1, 2}}}),
                            fp32({1, 4}, {1, 1, 2, 2}));
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::Upsample, {fp32({2}, {1, 2})},
                                         {{"scales", std::vector<double>{2}}, {"mode", std::string("cubic")}});
              }),
              "op 'op' (Upsample): mode 'cubic' is not one of nearest, linear");
    EXPECT_EQ(testing::inputErrorOf([] { testing::singleOpGraph(OpKind::Upsample, {fp32({2}, {1, 2})}); }),
              "op 'op' (Upsample): the scales are missing (an attribute in opset 7, input 1 from opset 9)");
}

TEST(InterpreterResize, RejectsShapeInputsThatAreNotConstantOrBothGiven) {
    EXPECT_EQ(testing::inputErrorOf([] {
                  testing::singleOpGraph(OpKind::Resize,
                                         {Tensor::zeros(DType::Fp32, {1, 4}), std::nullopt,
                                          Tensor::zeros(DType::Fp32, {2})});
              }),
              "op 'op' (Resize): scales decides the output shape and must be a constant (an "
              "initializer or a Constant node)");
    EXPECT_EQ(testing::inputErrorOf([] {
                  resize(fp32({2}, {1, 2}), std::nullopt, fp32({1}, {2}), int64({1}, {4}), {});
              }),
              "op 'op' (Resize): exactly one of scales and sizes must be given (non-empty)");
    EXPECT_EQ(testing::inputErrorOf([] {
                  resize(fp32({2}, {1, 2}), std::nullopt, fp32({2}, {1, 2}), std::nullopt, {});
              }),
              "op 'op' (Resize): scales must be [1], one value per axis of X [2], got [2]");
}

}  // namespace
}  // namespace npusim::compiler
