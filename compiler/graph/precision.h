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

/// How int8 post-training quantisation sets each activation's range from the calibration runs:
/// its smallest and largest value, or the mean over the runs of a high percentile of each
/// run's values (outliers clipped).
enum class CalibrationMethod { MinMax, Percentile };
/// Asymmetric activations use the whole int8 range for [min, max] (a zero point); symmetric
/// ones have zero point 0 and a scale for the larger magnitude. Weights are always symmetric,
/// one scale per output channel.
enum class ActivationScheme { Asymmetric, Symmetric };

/// "minmax", "percentile"; nullopt for another word.
std::optional<CalibrationMethod> parseCalibrationMethod(std::string_view name);
/// "asymmetric", "symmetric"; nullopt for another word.
std::optional<ActivationScheme> parseActivationScheme(std::string_view name);
std::string_view calibrationMethodName(CalibrationMethod method);
std::string_view activationSchemeName(ActivationScheme scheme);

struct QuantizationOptions {
    CalibrationMethod method = CalibrationMethod::MinMax;
    /// The percentile of |x| kept by CalibrationMethod::Percentile.
    double percentile = 99.99;
    ActivationScheme scheme = ActivationScheme::Asymmetric;
};

struct PrecisionOptions {
    /// fp32 compiles the model as its ONNX file declares it.
    Precision precision = Precision::Fp32;
    /// Ops kept at another precision (`--precision-override OP=fp32`): by op name, or by op
    /// type (an ONNX op_type such as "Softmax") for every op of that type.
    std::map<std::string, Precision> overrides;
    /// How int8 sets its activations' ranges and zero points.
    QuantizationOptions quantization;
};

}  // namespace npusim::compiler
