// The ONNX element type table (the numbering of onnx.TensorProto.DataType, stable across ONNX
// versions).
#include "compiler/graph/onnx_element_types.h"

#include <array>
#include <stdexcept>
#include <string_view>

namespace npusim::compiler {
namespace {

struct ElementType {
    std::string_view name;
    std::optional<DType> dtype;
};

/// Indexed by the ONNX code.
constexpr std::array<ElementType, 17> kElementTypes = {{
    {"UNDEFINED", std::nullopt},
    {"FLOAT", DType::Fp32},
    {"UINT8", DType::UInt8},
    {"INT8", DType::Int8},
    {"UINT16", std::nullopt},
    {"INT16", std::nullopt},
    {"INT32", DType::Int32},
    {"INT64", DType::Int64},
    {"STRING", std::nullopt},
    {"BOOL", DType::Bool},
    {"FLOAT16", DType::Fp16},
    {"DOUBLE", std::nullopt},
    {"UINT32", std::nullopt},
    {"UINT64", std::nullopt},
    {"COMPLEX64", std::nullopt},
    {"COMPLEX128", std::nullopt},
    {"BFLOAT16", DType::Bf16},
}};

bool isKnown(int64_t code) {
    return code >= 0 && code < static_cast<int64_t>(kElementTypes.size());
}

}  // namespace

std::optional<DType> dtypeOfOnnxElementType(int64_t code) {
    return isKnown(code) ? kElementTypes[code].dtype : std::nullopt;
}

int64_t onnxElementTypeOf(DType dtype) {
    for (size_t code = 0; code < kElementTypes.size(); ++code) {
        if (kElementTypes[code].dtype == dtype) return static_cast<int64_t>(code);
    }
    throw std::logic_error("a dtype without an ONNX element type");
}

std::string onnxElementTypeName(int64_t code) {
    return isKnown(code) ? std::string(kElementTypes[code].name)
                         : std::to_string(code) + " (unknown)";
}

}  // namespace npusim::compiler
