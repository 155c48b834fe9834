// ONNX TensorProto files (the input_<i>.pb / output_<i>.pb of ONNX's backend test data).
#pragma once

#include <filesystem>

#include "arch/tensor.h"

namespace npusim::compiler {

/// Reads a serialized onnx.TensorProto; throws InputError for a missing or malformed file or
/// an element type npusim does not handle.
Tensor readTensorProto(const std::filesystem::path& path);

}  // namespace npusim::compiler
