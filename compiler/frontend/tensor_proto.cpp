// Serialized onnx.TensorProto files (ONNX backend test data) into host tensors.
#include "compiler/frontend/tensor_proto.h"

#include "compiler/frontend/onnx_proto_io.h"

namespace npusim::compiler {

Tensor readTensorProto(const std::filesystem::path& path, std::optional<DType> declared) {
    onnx::TensorProto proto;
    frontend::readProtoFile(path, proto, "tensor file", "a valid onnx.TensorProto");
    if (proto.data_type() == onnx::TensorProto::UINT16 && declared == DType::Bf16) {
        proto.set_data_type(onnx::TensorProto::BFLOAT16);
    }
    return frontend::tensorFromProto(proto, "tensor file '" + path.string() + "'");
}

}  // namespace npusim::compiler
