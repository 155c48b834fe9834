// The precision a model is compiled at (`npusim compile --precision`): the dtype its GEMMs and
// convolutions run in on the tensor unit, and the ops kept at another precision by name or type.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "arch/dtype.h"

namespace npusim::compiler {

enum class Precision { Fp32, Bf16, Fp16, Int8 };

/// "fp32", "bf16", "fp16", "int8".
std::string_view precisionName(Precision precision);
/// The precision a name spells; nullopt for another word.
std::optional<Precision> parsePrecision(std::string_view name);
/// "fp32, bf16, fp16, int8", for messages.
std::string precisionNames();
/// The element type of a float precision's GEMM operands (int8's are int8).
DType precisionDType(Precision precision);

struct PrecisionOptions {
    /// fp32 compiles the model as its ONNX file declares it.
    Precision precision = Precision::Fp32;
    /// Ops kept at another precision (`--precision-override OP=fp32`): by op name, or by op
    /// type (an ONNX op_type such as "Softmax") for every op of that type.
    std::map<std::string, Precision> overrides;
};

}  // namespace npusim::compiler
