// NumPy .npy files (format versions 1-3, little-endian, C order) for model inputs and outputs.
#pragma once

#include <filesystem>
#include <string>

#include "arch/tensor.h"

namespace npusim::cli {

/// Throws InputError naming the file for a missing, malformed or unsupported file.
Tensor readNpy(const std::filesystem::path& path);
/// The bytes of a version 1.0 .npy file holding the tensor.
std::string npyBytes(const Tensor& tensor);

}  // namespace npusim::cli
