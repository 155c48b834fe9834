// Shape buckets at run time: the actual size of the buckets' symbolic dim read from the inputs,
// the smallest bucket that holds it, the inputs padded to that bucket, and the outputs cut back
// to the actual size (cropOrPad, arch/tensor.h).
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "arch/artifact.h"
#include "arch/tensor.h"

namespace npusim::runtime {

/// The bucket a run uses: the symbolic dim, the size compiled for and the inputs' actual size.
struct BucketChoice {
    std::string symbol;
    int64_t size = 0, actual = 0;
};

/// A bucketed artifact made ready for inputs of one actual size.
struct BucketRun {
    Artifact artifact;                     ///< the chosen bucket's (bucketArtifact)
    std::map<std::string, Tensor> inputs;  ///< padded to the bucket
    BucketChoice choice;
};

/// The smallest bucket at least `size`; InputError naming the largest when none is.
size_t chooseBucket(const ArtifactManifest& manifest, int64_t size);
/// `bindings` with every dim named `symbol` set to `size`.
std::vector<TensorBinding> resized(std::span<const TensorBinding> bindings, const std::string& symbol, int64_t size);
/// The actual size of the buckets' dim in `inputs` (InputError when two inputs disagree, or an
/// input's rank or another dim is not its binding's).
int64_t actualSize(const ArtifactManifest& manifest, const std::map<std::string, Tensor>& inputs);
/// The bucket for the inputs' actual size, with the inputs padded to it.
BucketRun prepareBucketRun(const Artifact& artifact, const std::map<std::string, Tensor>& inputs);
/// The outputs of a bucket run, cut back along the bucket's dim to the actual size; `bindings`
/// are the bucketed artifact's output bindings.
std::vector<Tensor> cutToActualSize(std::vector<Tensor> outputs, std::span<const TensorBinding> bindings,
                                    const BucketChoice& choice);

}  // namespace npusim::runtime
