// The actual size of a bucketed model's symbolic dim, read from its input files.
#pragma once

#include <filesystem>
#include <optional>

#include "arch/artifact.h"

namespace npusim::sim {

/// The actual size of the buckets' symbolic dim: the first input file (<name>.npy in
/// `inputs`) that has it, or `fallback`.
int64_t actualSize(const BucketRecord& bucket, const std::optional<std::filesystem::path>& inputs, int64_t fallback);

}  // namespace npusim::sim
