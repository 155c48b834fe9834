// The deviations table.
#include "compiler/frontend/backend_test_deviations.h"

#include <array>
#include <utility>

namespace npusim::compiler {
namespace {

constexpr std::string_view kTrainingDropout =
    "training-mode Dropout (random masks): npusim runs Dropout in inference mode";
constexpr std::string_view kTrainingBatchNorm =
    "training-mode BatchNormalization (batch statistics, running-statistic outputs): npusim runs it in "
    "inference mode";
constexpr std::string_view kMisdeclaredLike =
    "the data feeds input 'like' as fp32[1], but the model declares fp32[3,4]; npusim holds inputs to "
    "their declared types";
constexpr std::string_view kTruncatedBfloat16 =
    "the expected bfloat16 outputs truncate fp32; npusim rounds to nearest even, like its tensor unit, and "
    "the two differ by one bfloat16 ulp, beyond ONNX's tolerance";

constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kDeviations = {{
    {"test_training_dropout", kTrainingDropout},
    {"test_training_dropout_default", kTrainingDropout},
    {"test_training_dropout_default_mask", kTrainingDropout},
    {"test_training_dropout_mask", kTrainingDropout},
    {"test_training_dropout_zero_ratio", kTrainingDropout},
    {"test_training_dropout_zero_ratio_mask", kTrainingDropout},
    {"test_batchnorm_epsilon_training_mode", kTrainingBatchNorm},
    {"test_batchnorm_example_training_mode", kTrainingBatchNorm},
    {"test_cast_FLOAT_to_BFLOAT16", kTruncatedBfloat16},
    {"test_castlike_FLOAT_to_BFLOAT16", kTruncatedBfloat16},
    {"test_castlike_FLOAT_to_BFLOAT16_expanded", kTruncatedBfloat16},
    {"test_castlike_BFLOAT16_to_FLOAT", kMisdeclaredLike},
    {"test_castlike_BFLOAT16_to_FLOAT_expanded", kMisdeclaredLike},
}};

}  // namespace

std::optional<std::string_view> backendTestDeviation(std::string_view caseName) {
    for (const auto& [name, reason] : kDeviations) {
        if (name == caseName) return reason;
    }
    return std::nullopt;
}

}  // namespace npusim::compiler
