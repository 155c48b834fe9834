// Element type sizes and names.
#include "arch/dtype.h"

#include <array>

namespace npusim {
namespace {

struct DTypeInfo {
    std::string_view name;
    uint32_t size;
    bool isFloat;
};

constexpr std::array<DTypeInfo, kDTypeCount> kDTypes = {{
    {"int8", 1, false},
    {"uint8", 1, false},
    {"int32", 4, false},
    {"fp32", 4, true},
    {"fp16", 2, true},
    {"bf16", 2, true},
    {"int64", 8, false},
    {"bool", 1, false},
}};

const DTypeInfo& info(DType type) { return kDTypes.at(static_cast<size_t>(type)); }

}  // namespace

uint32_t dtypeSize(DType type) { return info(type).size; }
std::string_view dtypeName(DType type) { return info(type).name; }
bool isFloat(DType type) { return info(type).isFloat; }

std::optional<DType> parseDType(std::string_view name) {
    for (size_t i = 0; i < kDTypes.size(); ++i) {
        if (kDTypes[i].name == name) return static_cast<DType>(i);
    }
    return std::nullopt;
}

}  // namespace npusim
