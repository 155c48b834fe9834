// Shape buckets at run time, on a synthetic bucketed artifact: the actual size read from the
// inputs, the bucket chosen for it, the inputs padded to the bucket (with the bucket's sections
// under their plain names), the outputs cut back, and the errors that name what does not fit.
#include <gtest/gtest.h>

#include "arch/error.h"
#include "runtime/buckets.h"

namespace npusim::runtime {
namespace {

TensorBinding binding(const std::string& name, Shape shape, std::vector<std::string> symbols) {
    TensorBinding b;
    b.name = name;
    b.shape = std::move(shape);
    b.symbols = std::move(symbols);
    return b;
}

/// x [1, seq, 4] and a fixed y [2] in, out [1, seq, 4], compiled for seq 8 and 16.
Artifact bucketed() {
    Artifact artifact;
    for (int64_t size : {8, 16}) {
        BucketRecord bucket;
        bucket.symbol = "seq";
        bucket.size = size;
        bucket.inputs = {binding("x", {1, size, 4}, {"", "seq", ""}), binding("y", {2}, {})};
        bucket.outputs = {binding("out", {1, size, 4}, {"", "seq", ""})};
        artifact.manifest.buckets.push_back(bucket);
        artifact.sections["weights@" + bucketLabel(bucket)] = std::vector<std::byte>(static_cast<size_t>(size), std::byte{1});
    }
    artifact.manifest.inputs = artifact.manifest.buckets[0].inputs;
    artifact.manifest.outputs = artifact.manifest.buckets[0].outputs;
    return artifact;
}

Tensor ramp(Shape shape) {
    Tensor t = Tensor::zeros(DType::Fp32, std::move(shape));
    float v = 1;
    for (float& x : t.as<float>()) x = v++;
    return t;
}

std::string inputErrorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(Buckets, TheSmallestBucketThatHoldsTheInputsRunsThemPadded) {
    const Artifact artifact = bucketed();
    const std::map<std::string, Tensor> inputs{{"x", ramp({1, 10, 4})}, {"y", ramp({2})}};
    EXPECT_EQ(actualSize(artifact.manifest, inputs), 10);
    const BucketRun run = prepareBucketRun(artifact, inputs);
    EXPECT_EQ(run.choice.symbol, "seq");
    EXPECT_EQ(run.choice.size, 16);
    EXPECT_EQ(run.choice.actual, 10);
    EXPECT_TRUE(run.artifact.manifest.buckets.empty());
    EXPECT_EQ(run.artifact.sections.at("weights").size(), 16u);  // the bucket's, under its plain name
    const Tensor& x = run.inputs.at("x");
    EXPECT_EQ(x.shape, (Shape{1, 16, 4}));
    EXPECT_EQ(x.as<float>()[39], 40.0f);  // the last real element
    EXPECT_EQ(x.as<float>()[40], 0.0f);   // padding
    // The outputs cut back to the actual size.
    const std::vector<Tensor> cut = cutToActualSize({ramp({1, 16, 4})}, artifact.manifest.outputs, run.choice);
    EXPECT_EQ(cut[0].shape, (Shape{1, 10, 4}));
    EXPECT_EQ(cut[0].as<float>()[39], 40.0f);
    EXPECT_EQ(resized(artifact.manifest.outputs, "seq", 10)[0].shape, (Shape{1, 10, 4}));
}

TEST(Buckets, SizesAndShapesThatDoNotFitAreNamed) {
    const Artifact artifact = bucketed();
    EXPECT_EQ(inputErrorOf([&] { prepareBucketRun(artifact, {{"x", ramp({1, 17, 4})}, {"y", ramp({2})}}); }),
              "seq=17 is larger than the largest bucket (seq=16); recompile with a larger --bucket seq");
    EXPECT_EQ(inputErrorOf([&] { actualSize(artifact.manifest, {{"x", ramp({1, 10, 5})}}); }),
              "input 'x': expected [1,8,4] with seq any size up to 16, got [1,10,5]");
    EXPECT_EQ(inputErrorOf([&] { actualSize(artifact.manifest, {{"y", ramp({2})}}); }),
              "no input carries the bucketed dim seq");
    EXPECT_EQ(inputErrorOf([&] { actualSize(artifact.manifest, {{"x", ramp({1, 0, 4})}}); }),
              "seq=0: a bucketed dim must be positive");
}

}  // namespace
}  // namespace npusim::runtime
