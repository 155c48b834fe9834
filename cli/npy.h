// NumPy .npy files (format versions 1-3, little-endian, C order) for model inputs and outputs.
#pragma once

#include <filesystem>
#include <string>

#include "arch/tensor.h"

namespace npusim::cli {

/// Throws InputError naming the file for a missing, malformed or unsupported file (naming
/// `expected`, the dtype the caller wants, when the file's element type is not one npusim reads).
Tensor readNpy(const std::filesystem::path& path, DType expected);
/// The bytes of a version 1.0 .npy file holding the tensor.
std::string npyBytes(const Tensor& tensor);

}  // namespace npusim::cli
