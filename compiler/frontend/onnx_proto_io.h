// Internal to the ONNX frontend: reading protobuf files, and ONNX element types and
// TensorProtos converted to npusim dtypes and tensors. Includes ONNX; keep it out of public
// headers.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "arch/tensor.h"

namespace npusim::compiler::frontend {

/// Reads and parses a serialized protobuf message. Throws InputError "cannot read <kind> '<path>'"
/// or "<kind> '<path>' is not <description> (protobuf parse failed)".
void readProtoFile(const std::filesystem::path& path, google::protobuf::MessageLite& message,
                   std::string_view kind, std::string_view description);

/// The DType for an ONNX element type (onnx::TensorProto::DataType); nullopt when npusim does
/// not handle it.
std::optional<DType> findDType(int32_t elementType);
/// The ONNX name of an element type ("FLOAT", "DOUBLE").
std::string onnxTypeName(int32_t elementType);
/// As findDType, but throws InputError "<what> has element type DOUBLE, which npusim does not
/// support (...)".
DType dtypeFromOnnx(int32_t elementType, const std::string& what);

/// Converts a TensorProto stored in raw_data or in its typed field (float_data, int32_data,
/// int64_data); `what` names it in messages ("initializer 'w'").
Tensor tensorFromProto(const onnx::TensorProto& proto, const std::string& what);

}  // namespace npusim::compiler::frontend
