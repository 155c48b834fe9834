// ONNX protobuf files and TensorProto contents into npusim tensors.
#include "compiler/frontend/onnx_proto_io.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "arch/error.h"
#include "arch/read_file.h"
#include "compiler/graph/onnx_element_types.h"

namespace npusim::compiler::frontend {
namespace {

static_assert(std::endian::native == std::endian::little,
              "raw_data is little-endian and is copied as is");

constexpr const char* kSupportedTypes = "FLOAT, FLOAT16, BFLOAT16, INT8, UINT8, INT32, INT64, BOOL";

/// Copies a typed repeated field into the tensor, element by element, checking the count and
/// that each value fits the element type (int8, uint8, bool and the 16-bit float bit patterns
/// all travel in int32_data).
template <class Element, class Field>
void copyTypedField(const Field& field, std::string_view fieldName, Tensor& tensor,
                    const std::string& what) {
    const auto count = static_cast<size_t>(tensor.elementCount());
    if (static_cast<size_t>(field.size()) != count) {
        throw InputError(what + " has " + std::to_string(field.size()) + " values in " +
                         std::string(fieldName) + ", but its shape " + shapeString(tensor.shape) +
                         " needs " + std::to_string(count));
    }
    const std::span<Element> out = tensor.as<Element>();
    for (size_t i = 0; i < count; ++i) {
        const auto value = field.Get(static_cast<int>(i));
        if constexpr (sizeof(Element) < sizeof(value)) {
            if (value < std::numeric_limits<Element>::min() ||
                value > std::numeric_limits<Element>::max()) {
                throw InputError(what + ": value " + std::to_string(value) + " at index " +
                                 std::to_string(i) + " does not fit " +
                                 std::string(dtypeName(tensor.dtype)));
            }
        }
        out[i] = static_cast<Element>(value);
    }
}

}  // namespace

void readProtoFile(const std::filesystem::path& path, google::protobuf::MessageLite& message,
                   std::string_view kind, std::string_view description) {
    const std::string label = std::string(kind) + " '" + path.string() + "'";
    std::error_code error;
    std::ifstream file(path, std::ios::binary);
    if (!std::filesystem::is_regular_file(path, error) || !file) {
        throw InputError("cannot read " + label + ": " + unreadableReason(path));
    }
    const std::string bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    if (file.bad()) throw InputError("cannot read " + label);
    if (!message.ParseFromString(bytes)) {
        throw InputError(label + " is not " + std::string(description) +
                         " (protobuf parse failed)");
    }
}

std::optional<DType> findDType(int32_t elementType) {
    return dtypeOfOnnxElementType(elementType);
}

std::string onnxTypeName(int32_t elementType) {
    if (!onnx::TensorProto::DataType_IsValid(elementType)) {
        return std::to_string(elementType) + " (unknown)";
    }
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(elementType));
}

DType dtypeFromOnnx(int32_t elementType, const std::string& what) {
    if (const auto dtype = findDType(elementType)) return *dtype;
    throw InputError(what + " has element type " + onnxTypeName(elementType) +
                     ", which npusim does not support (supported: " + kSupportedTypes + ")");
}

Tensor tensorFromProto(const onnx::TensorProto& proto, const std::string& what) {
    if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
        throw InputError(what + " keeps its data in an external file, which is not supported");
    }
    if (proto.has_segment()) {
        throw InputError(what + " is split into segments, which is not supported");
    }
    Shape shape;
    const DType dtype = dtypeFromOnnx(proto.data_type(), what);
    // The data a proto holds bounds the elements its dims may declare: checked before any
    // allocation, so that a corrupt file cannot ask for more memory than it brings.
    const uint64_t held = proto.has_raw_data() ? proto.raw_data().size() / dtypeSize(dtype)
                          : dtype == DType::Fp32  ? static_cast<uint64_t>(proto.float_data_size())
                          : dtype == DType::Int64 ? static_cast<uint64_t>(proto.int64_data_size())
                                                  : static_cast<uint64_t>(proto.int32_data_size());
    // The count is multiplied in dims order, as elementCount does: it must not overflow, even
    // when a later dim is 0.
    int64_t elements = 1;
    bool overflow = false;
    for (int64_t dim : proto.dims()) {
        if (dim < 0) throw InputError(what + " has a negative dimension " + std::to_string(dim));
        shape.push_back(dim);
        overflow = overflow || __builtin_mul_overflow(elements, dim, &elements);
    }
    if (overflow || static_cast<uint64_t>(elements) > held) {
        throw InputError(what + " declares the shape " + shapeString(shape) + ", more elements than the " +
                         std::to_string(held) + " it holds");
    }
    Tensor tensor = Tensor::zeros(dtype, std::move(shape));

    if (proto.has_raw_data()) {
        const std::string& raw = proto.raw_data();
        if (raw.size() != tensor.bytes.size()) {
            throw InputError(what + " has " + std::to_string(raw.size()) +
                             " bytes of raw_data, but " + std::string(dtypeName(tensor.dtype)) +
                             shapeString(tensor.shape) + " needs " +
                             std::to_string(tensor.bytes.size()));
        }
        if (!raw.empty()) std::memcpy(tensor.bytes.data(), raw.data(), raw.size());  // an empty vector's data() may be null
        return tensor;
    }
    switch (tensor.dtype) {
        case DType::Fp32:
            copyTypedField<float>(proto.float_data(), "float_data", tensor, what);
            break;
        case DType::Int64:
            copyTypedField<int64_t>(proto.int64_data(), "int64_data", tensor, what);
            break;
        case DType::Int32:
            copyTypedField<int32_t>(proto.int32_data(), "int32_data", tensor, what);
            break;
        case DType::Int8:
            copyTypedField<int8_t>(proto.int32_data(), "int32_data", tensor, what);
            break;
        case DType::UInt8:
        case DType::Bool:
            copyTypedField<uint8_t>(proto.int32_data(), "int32_data", tensor, what);
            break;
        case DType::Fp16:
        case DType::Bf16:
            copyTypedField<uint16_t>(proto.int32_data(), "int32_data", tensor, what);
            break;
    }
    return tensor;
}

}  // namespace npusim::compiler::frontend
