// Element types understood by every layer, from ONNX import to the tensor unit.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace npusim {

/// Element type of a tensor. The numeric values are the ISA encoding (4 bits).
enum class DType : uint8_t {
    Int8 = 0,
    UInt8 = 1,
    Int32 = 2,
    Fp32 = 3,
    Fp16 = 4,
    Bf16 = 5,
    Int64 = 6,
    Bool = 7,
};

inline constexpr int kDTypeCount = 8;

/// Bytes per element.
uint32_t dtypeSize(DType type);
/// Lower-case name used in text formats ("int8", "fp32").
std::string_view dtypeName(DType type);
/// Inverse of dtypeName; nullopt for an unknown name.
std::optional<DType> parseDType(std::string_view name);
/// True for the floating-point types.
bool isFloat(DType type);

}  // namespace npusim
