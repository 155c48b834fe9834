// Running a model compiled for shape buckets: the actual size of its symbolic dim, the bucket
// that holds it, and inputs padded to the bucket and outputs cut back to the actual size.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "arch/artifact.h"
#include "arch/tensor.h"

namespace npusim::sim {

/// The smallest bucket at least `size`; InputError naming the largest when none is.
size_t chooseBucket(const ArtifactManifest& manifest, int64_t size);
/// The actual size of the buckets' symbolic dim: the first input file (<name>.npy in
/// `inputs`) that has it, or `fallback`.
int64_t actualSize(const BucketRecord& bucket, const std::optional<std::filesystem::path>& inputs, int64_t fallback);
/// `bindings` with every dim named `symbol` set to `size`.
std::vector<TensorBinding> resized(std::span<const TensorBinding> bindings, const std::string& symbol, int64_t size);
/// `tensor` in `shape`: zero-padded or cut along each dim to the target (row-major).
Tensor reshaped(const Tensor& tensor, const Shape& shape);

}  // namespace npusim::sim
