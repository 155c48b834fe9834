// ONNX's tensor element type codes (onnx.TensorProto.DataType), as Cast's 'to' attribute and
// every TensorProto carry them, and the npusim dtype of each. One table for the frontend and
// the ops.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "arch/dtype.h"

namespace npusim::compiler {

/// The dtype of an ONNX element type code; nullopt when npusim has no such dtype (DOUBLE,
/// STRING, INT16, ...).
std::optional<DType> dtypeOfOnnxElementType(int64_t code);

/// The ONNX element type code of `dtype` (Cast's 'to' for it).
int64_t onnxElementTypeOf(DType dtype);

/// ONNX's name of an element type code ("DOUBLE"); "<code> (unknown)" for a code ONNX lacks.
std::string onnxElementTypeName(int64_t code);

}  // namespace npusim::compiler
