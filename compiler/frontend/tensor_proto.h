// ONNX TensorProto files (the input_<i>.pb / output_<i>.pb of ONNX's backend test data).
#pragma once

#include <filesystem>
#include <optional>

#include "arch/tensor.h"

namespace npusim::compiler {

/// Reads a serialized onnx.TensorProto; throws InputError for a missing or malformed file or
/// an element type npusim does not handle. `declared` is the type the model gives the tensor:
/// ONNX 1.12 stored bfloat16 test data as UINT16 bit patterns, read as the bfloat16 they are.
Tensor readTensorProto(const std::filesystem::path& path, std::optional<DType> declared = std::nullopt);

}  // namespace npusim::compiler
