#include "cli/sweep/sweep_spec.h"


#include <nlohmann/json.hpp>

#include "arch/arch_config.h"
#include "arch/error.h"
#include "arch/read_file.h"
#include "compiler/graph/precision.h"

namespace npusim::cli {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kCompilerDim = "compiler.dim.";

/// The text --set takes for a JSON value: a string as it is, anything else as JSON.
std::string settingText(const Json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

/// Applies one axis key and value to a point.
void apply(SweepPoint& point, const std::string& key, const Json& value, const std::string& where) {
    if (key == "preset") {
        if (!value.is_string()) throw InputError(where + ": preset values are preset names");
        point.preset = value.get<std::string>();
    } else if (key == "compiler.fusion") {
        if (!value.is_boolean()) throw InputError(where + ": compiler.fusion values are true or false");
        point.fusion = value.get<bool>();
    } else if (key == "compiler.precision") {
        const std::optional<compiler::Precision> precision =
            value.is_string() ? compiler::parsePrecision(value.get<std::string>()) : std::nullopt;
        if (!precision) throw InputError(where + ": compiler.precision values are fp32, bf16, fp16 or int8");
        point.precision = value.get<std::string>();
    } else if (key.starts_with(kCompilerDim)) {
        if (!value.is_number_integer() || value.get<int64_t>() <= 0) {
            throw InputError(where + ": " + key + " values are positive integers");
        }
        point.dims[key.substr(kCompilerDim.size())] = value.get<int64_t>();
    } else if (key.starts_with("compiler.")) {
        throw InputError(where + ": unknown compiler option '" + key +
                         "' (compiler.fusion, compiler.precision, compiler.dim.<name>)");
    } else {
        if (!value.is_primitive() || value.is_null()) throw InputError(where + ": values of '" + key + "' must be numbers, strings or booleans");
        point.archOverrides.push_back(key + "=" + settingText(value));
    }
}

}  // namespace

SweepSpec readSweepSpec(const std::filesystem::path& file) {
    const std::string text = readWholeFile(file, "sweep spec");
    const std::string origin = "sweep spec '" + file.string() + "'";
    Json j;
    try {
        j = Json::parse(text, nullptr, true, true);
    } catch (const Json::exception& e) {  // a syntax error, or a number out of range
        throw InputError(origin + " is not valid JSON: " + e.what());
    }
    if (!j.is_object()) throw InputError(origin + ": expected a JSON object");
    for (const auto& [key, value] : j.items()) {
        if (key != "models" && key != "base" && key != "axes" && key != "timing_only" && key != "calibrate_inputs") {
            throw InputError(origin + ": unknown field '" + key + "' (models, base, axes, timing_only, calibrate_inputs)");
        }
    }
    SweepSpec spec;
    spec.file = file;
    const auto models = j.find("models");
    if (models == j.end() || !models->is_array() || models->empty()) throw InputError(origin + ": 'models' must be a non-empty list of ONNX files");
    for (const Json& model : *models) {
        if (!model.is_string()) throw InputError(origin + ": 'models' must list file names");
        const std::filesystem::path path = file.parent_path() / model.get<std::string>();
        if (!std::filesystem::is_regular_file(path)) throw InputError(origin + ": model '" + path.string() + "' does not exist");
        spec.models.push_back(path);
    }
    if (const auto base = j.find("base"); base != j.end()) {
        if (!base->is_string()) throw InputError(origin + ": 'base' must be a preset name or arch config file");
        spec.base = base->get<std::string>();
    }
    // int8's calibration samples: one directory for every model, or one per model file.
    if (const auto calibration = j.find("calibrate_inputs"); calibration != j.end()) {
        const auto directory = [&](const Json& name) {
            if (!name.is_string()) throw InputError(origin + ": 'calibrate_inputs' must name directories");
            const std::filesystem::path path = file.parent_path() / name.get<std::string>();
            if (!std::filesystem::is_directory(path)) {
                throw InputError(origin + ": calibration directory '" + path.string() + "' does not exist");
            }
            return path;
        };
        if (calibration->is_object()) {
            for (const auto& [model, name] : calibration->items()) {
                const std::filesystem::path path = file.parent_path() / model;
                if (std::find(spec.models.begin(), spec.models.end(), path) == spec.models.end()) {
                    throw InputError(origin + ": 'calibrate_inputs' names '" + model + "', which 'models' does not list");
                }
                spec.calibration[path] = directory(name);
            }
        } else {
            for (const std::filesystem::path& model : spec.models) spec.calibration[model] = directory(*calibration);
        }
    }
    if (const auto timing = j.find("timing_only"); timing != j.end()) {
        if (!timing->is_boolean()) throw InputError(origin + ": 'timing_only' must be true or false");
        spec.timingOnly = timing->get<bool>();
    }
    if (const auto axes = j.find("axes"); axes != j.end()) {
        if (!axes->is_array()) throw InputError(origin + ": 'axes' must be a list of objects");
        for (size_t a = 0; a < axes->size(); ++a) {
            const Json& axis = (*axes)[a];
            const std::string where = origin + ": axes[" + std::to_string(a) + "]";
            if (!axis.is_object() || axis.empty()) throw InputError(where + " must map keys to lists of values");
            std::map<std::string, std::vector<std::string>> values;
            size_t length = 0;
            for (const auto& [key, list] : axis.items()) {
                if (!list.is_array() || list.empty()) throw InputError(where + ": '" + key + "' must be a non-empty list");
                if (length != 0 && list.size() != length) {
                    throw InputError(where + ": zipped lists must have one length ('" + key + "' has " +
                                     std::to_string(list.size()) + ", others " + std::to_string(length) + ")");
                }
                length = list.size();
                for (const Json& value : list) values[key].push_back(value.dump());
            }
            spec.axes.push_back(std::move(values));
        }
    }
    // Every point must be a valid design point: checked now, before anything runs.
    for (const SweepPoint& point : expandSweep(spec)) {
        try {
            (void)loadArchConfig(point.preset, point.archOverrides);
            if (point.precision == "int8" && point.calibrateInputs.empty()) {
                throw InputError("compiler.precision int8 needs 'calibrate_inputs' for " + point.model.filename().string());
            }
        } catch (const InputError& e) {
            throw InputError(origin + ": point " + point.params + ": " + e.what());
        }
    }
    return spec;
}

std::vector<SweepPoint> expandSweep(const SweepSpec& spec) {
    // Per axis, the number of positions (the length of its lists); points count the product.
    std::vector<size_t> lengths;
    size_t perModel = 1;
    for (const auto& axis : spec.axes) {
        lengths.push_back(axis.begin()->second.size());
        perModel *= lengths.back();
    }
    std::vector<SweepPoint> points;
    for (const std::filesystem::path& model : spec.models) {
        for (size_t n = 0; n < perModel; ++n) {
            SweepPoint point;
            point.index = points.size();
            point.model = model;
            point.preset = spec.base;
            if (const auto calibration = spec.calibration.find(model); calibration != spec.calibration.end()) {
                point.calibrateInputs = calibration->second;
            }
            Json params = Json::object();
            size_t rest = n;
            std::vector<size_t> positions(lengths.size());
            for (size_t a = lengths.size(); a-- > 0;) {  // last axis fastest
                positions[a] = rest % lengths[a];
                rest /= lengths[a];
            }
            for (size_t a = 0; a < spec.axes.size(); ++a) {
                for (const auto& [key, values] : spec.axes[a]) {
                    const Json value = Json::parse(values[positions[a]]);
                    apply(point, key, value, "sweep spec '" + spec.file.string() + "': axes[" + std::to_string(a) + "]");
                    params[key] = value;
                }
            }
            point.params = params.dump();
            points.push_back(std::move(point));
        }
    }
    return points;
}

}  // namespace npusim::cli
