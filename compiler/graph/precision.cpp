#include "compiler/graph/precision.h"

#include <array>
#include <utility>

namespace npusim::compiler {
namespace {

constexpr std::array<std::pair<Precision, std::string_view>, 4> kNames = {
    {{Precision::Fp32, "fp32"}, {Precision::Bf16, "bf16"}, {Precision::Fp16, "fp16"}, {Precision::Int8, "int8"}}};

}  // namespace

std::string_view precisionName(Precision precision) {
    for (const auto& [p, name] : kNames) {
        if (p == precision) return name;
    }
    return "?";
}

std::optional<Precision> parsePrecision(std::string_view name) {
    for (const auto& [p, text] : kNames) {
        if (text == name) return p;
    }
    return std::nullopt;
}

std::string precisionNames() {
    std::string names;
    for (const auto& [p, text] : kNames) names.append(names.empty() ? "" : ", ").append(text);
    return names;
}

DType precisionDType(Precision precision) {
    switch (precision) {
        case Precision::Bf16: return DType::Bf16;
        case Precision::Fp16: return DType::Fp16;
        case Precision::Int8: return DType::Int8;
        case Precision::Fp32: break;
    }
    return DType::Fp32;
}

}  // namespace npusim::compiler
