// A sweep: models times design points. The spec (JSON) names the models, a base preset and
// axes; each axis maps one or more keys to lists of values (one key: a grid axis; several
// keys: lists zipped together). The points are the product of the axes, for every model, in
// a fixed order, so that a worker given an index finds the same point as the sweep that
// listed it. docs/SWEEPS.md describes the format.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace npusim::cli {

/// One simulation of a sweep: a model on a design point.
struct SweepPoint {
    size_t index = 0;               ///< position in the sweep's order
    std::filesystem::path model;    ///< resolved against the spec's directory
    std::string preset;             ///< the base preset (or the point's "preset" axis value)
    std::vector<std::string> archOverrides;    ///< path=value, as --set takes them
    bool fusion = true;                        ///< compiler.fusion
    std::string precision = "fp32";            ///< compiler.precision
    std::filesystem::path calibrateInputs;     ///< the model's int8 calibration samples (calibrate_inputs)
    std::map<std::string, int64_t> dims;       ///< compiler.dim.<name>
    std::string params;  ///< the axis values of the point as a JSON object (text)
};

struct SweepSpec {
    std::filesystem::path file;
    std::vector<std::filesystem::path> models;
    std::string base = "edge";
    std::vector<std::map<std::string, std::vector<std::string>>> axes;  ///< per axis: key -> JSON values
    bool timingOnly = true;
    /// Per model, the directory of its int8 calibration samples (`calibrate_inputs`).
    std::map<std::filesystem::path, std::filesystem::path> calibration;
};

/// Reads and checks a spec; InputError naming the file and the field at fault.
SweepSpec readSweepSpec(const std::filesystem::path& file);
/// Every point of the sweep, in order (models outermost, then the axes, first axis slowest).
std::vector<SweepPoint> expandSweep(const SweepSpec& spec);

}  // namespace npusim::cli
