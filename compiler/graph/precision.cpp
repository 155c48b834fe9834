#include "compiler/graph/precision.h"

#include <array>
#include <utility>

namespace npusim::compiler {
namespace {

constexpr std::array<std::pair<Precision, std::string_view>, 4> kNames = {
    {{Precision::Fp32, "fp32"}, {Precision::Bf16, "bf16"}, {Precision::Fp16, "fp16"}, {Precision::Int8, "int8"}}};

constexpr std::array<std::pair<CalibrationMethod, std::string_view>, 2> kMethods = {
    {{CalibrationMethod::MinMax, "minmax"}, {CalibrationMethod::Percentile, "percentile"}}};
constexpr std::array<std::pair<ActivationScheme, std::string_view>, 2> kSchemes = {
    {{ActivationScheme::Asymmetric, "asymmetric"}, {ActivationScheme::Symmetric, "symmetric"}}};

template <class Enum, size_t N>
std::optional<Enum> parseName(const std::array<std::pair<Enum, std::string_view>, N>& names, std::string_view name) {
    for (const auto& [value, text] : names) {
        if (text == name) return value;
    }
    return std::nullopt;
}

template <class Enum, size_t N>
std::string_view nameOf(const std::array<std::pair<Enum, std::string_view>, N>& names, Enum value) {
    for (const auto& [v, text] : names) {
        if (v == value) return text;
    }
    return "?";
}

}  // namespace

std::optional<CalibrationMethod> parseCalibrationMethod(std::string_view name) { return parseName(kMethods, name); }
std::optional<ActivationScheme> parseActivationScheme(std::string_view name) { return parseName(kSchemes, name); }
std::string_view calibrationMethodName(CalibrationMethod method) { return nameOf(kMethods, method); }
std::string_view activationSchemeName(ActivationScheme scheme) { return nameOf(kSchemes, scheme); }

std::string_view precisionName(Precision precision) { return nameOf(kNames, precision); }

std::optional<Precision> parsePrecision(std::string_view name) { return parseName(kNames, name); }

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
