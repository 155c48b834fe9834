// Model inputs and outputs as files: reading a directory (<name>.npy, or input_<i>.pb as in
// ONNX's backend test data), deterministic random inputs, writing outputs, and comparing
// outputs with references.
#pragma once

#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "arch/artifact.h"
#include "arch/tensor.h"
#include "compiler/passes/activation_ranges.h"
#include "reports/report.h"
#include "cli/output_files.h"

namespace npusim::cli {

/// Reads every input of `bindings` from `directory` (<name>.npy or input_<i>.pb); InputError
/// names a missing or mismatching input. Dims named `anySize` (a bucketed artifact's symbol) may
/// have any size: the runtime picks the bucket for it.
std::map<std::string, Tensor> readInputs(const std::filesystem::path& directory,
                                         std::span<const TensorBinding> bindings, const std::string& anySize = "");
/// Each int8 calibration sample in `directory` (a subdirectory of inputs each, read as readInputs
/// reads them, in name order) for the graph's inputs; InputError names what is missing or
/// mismatched, or that there is no subdirectory.
std::vector<compiler::CalibrationSet> readCalibrationSets(const std::filesystem::path& directory, const compiler::Graph& graph);
/// Deterministic pseudo-random inputs (same seed, same values).
std::map<std::string, Tensor> randomInputs(std::span<const TensorBinding> bindings, uint64_t seed);
/// Reads reference outputs (<name>.npy or output_<i>.pb) from `directory`. A dim whose symbol
/// names one of `sizes` (data-dependent sizes) may be smaller than the binding's.
std::vector<Tensor> readExpectedOutputs(const std::filesystem::path& directory, std::span<const TensorBinding> bindings,
                                        std::span<const TensorBinding> sizes);
/// Stages <name>.npy per output into `directory` (created if needed).
void writeOutputs(OutputFiles& files, const std::filesystem::path& directory,
                  std::span<const TensorBinding> bindings, std::span<const Tensor> outputs);

/// Floating outputs pass when |actual - expected| <= atol + rtol * |expected| everywhere;
/// integer outputs must be identical; outputs of different shapes (data-dependent sizes that
/// differ) do not pass. The relative error reported is the largest absolute
/// error of an output divided by the output's largest magnitude. Per output, the result also
/// holds the SNR, the cosine similarity and, for scores over classes, top-1/top-5 agreement.
reports::CheckResult compareOutputs(std::span<const TensorBinding> bindings,
                                    std::span<const Tensor> actual,
                                    std::span<const Tensor> expected, double rtol, double atol);

}  // namespace npusim::cli
