#include "compiler/cost/cost_params.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "arch/error.h"
#include "arch/read_file.h"

namespace npusim::compiler {

using Json = nlohmann::ordered_json;

std::string_view costFeatureName(CostFeature feature) {
    switch (feature) {
        case CostFeature::Compute: return "compute";
        case CostFeature::Memory: return "memory";
        case CostFeature::Transfer: return "transfer";
        case CostFeature::Exposed: return "exposed";
        case CostFeature::Dispatch: return "dispatch";
        case CostFeature::Blocks: return "per_block";
        case CostFeature::Op: return "per_op";
    }
    return "?";
}

CostParams readCostParams(const std::filesystem::path& file) {
    const std::string text = readWholeFile(file, "cost parameters");
    const std::string origin = "cost parameters '" + file.string() + "'";
    CostParams params;
    try {
        const Json j = Json::parse(text);
        params.archHash = j.at("arch_hash").get<std::string>();
        const Json& weights = j.at("weights");
        for (size_t i = 0; i < kCostFeatures; ++i) {
            const std::string name(costFeatureName(static_cast<CostFeature>(i)));
            const double weight = weights.at(name).get<double>();
            if (!std::isfinite(weight) || weight < 0) {
                throw InputError(origin + ": weight '" + name + "' must be a finite number >= 0");
            }
            params.weights[i] = weight;
        }
        const Json& dma = j.at("dma");
        params.dmaBandwidth = dma.at("bandwidth_fraction").get<double>();
        params.burstCycles = dma.at("burst_cycles").get<double>();
        if (!(params.dmaBandwidth > 0) || !(params.burstCycles > 0) || !std::isfinite(params.dmaBandwidth) ||
            !std::isfinite(params.burstCycles)) {
            throw InputError(origin + ": dma.bandwidth_fraction and dma.burst_cycles must be positive numbers");
        }
        // Files fitted before the energy estimate have no scale: the analytical one.
        params.energyScale = j.value("energy", Json::object()).value("scale", 1.0);
        if (!(params.energyScale > 0) || !std::isfinite(params.energyScale)) {
            throw InputError(origin + ": energy.scale must be a positive number");
        }
    } catch (const Json::exception& e) {
        throw InputError(origin + " is not what npusim calibrate writes: " + e.what());
    }
    return params;
}

std::string costParamsToJson(const CostParams& params, const std::string& archName, const std::string& extra) {
    Json j;
    j["arch"] = archName;
    j["arch_hash"] = params.archHash;
    j["weights"] = Json::object();
    for (size_t i = 0; i < kCostFeatures; ++i) j["weights"][std::string(costFeatureName(static_cast<CostFeature>(i)))] = params.weights[i];
    j["dma"] = {{"bandwidth_fraction", params.dmaBandwidth}, {"burst_cycles", params.burstCycles}};
    j["energy"] = {{"scale", params.energyScale}};
    j["calibration"] = Json::parse(extra);
    return j.dump(2) + "\n";
}

}  // namespace npusim::compiler
