// Shape buckets at run time: the bucket that holds an actual size and bindings at that size
// (cropOrPad, arch/tensor.h, pads tensors to a bucket and cuts them back).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "arch/artifact.h"
#include "arch/tensor.h"

namespace npusim::runtime {

/// The smallest bucket at least `size`; InputError naming the largest when none is.
size_t chooseBucket(const ArtifactManifest& manifest, int64_t size);
/// `bindings` with every dim named `symbol` set to `size`.
std::vector<TensorBinding> resized(std::span<const TensorBinding> bindings, const std::string& symbol, int64_t size);

}  // namespace npusim::runtime
