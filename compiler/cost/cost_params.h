// The cost model's fitted weights as a file: `npusim calibrate -o params.json` writes it,
// `npusim compile/run --cost-params params.json` reads it.
#pragma once

#include <filesystem>
#include <string>

#include "compiler/cost/cost_model.h"

namespace npusim::compiler {

/// The name of each weight in the file, by CostFeature.
std::string_view costFeatureName(CostFeature feature);

/// Reads a parameter file; InputError naming the file and field when it is not one.
CostParams readCostParams(const std::filesystem::path& file);
/// The file's JSON: the weights, the DMA timing, the config they were fitted for, and `extra`
/// (a JSON object's text: how the fit went) under "calibration".
std::string costParamsToJson(const CostParams& params, const std::string& archName, const std::string& extra);

}  // namespace npusim::compiler
