// NumPy .npy files (format versions 1-3, little-endian, C order) for model inputs and outputs.
#pragma once

#include <filesystem>

#include "arch/tensor.h"

namespace npusim::sim {

/// Throws InputError naming the file for a missing, malformed or unsupported file.
Tensor readNpy(const std::filesystem::path& path);
/// Writes version 1.0 atomically; throws RunError when the file cannot be written.
void writeNpy(const std::filesystem::path& path, const Tensor& tensor);

}  // namespace npusim::sim
