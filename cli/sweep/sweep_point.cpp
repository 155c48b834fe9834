#include "cli/sweep/sweep_point.h"

#include <chrono>
#include <map>

#include <nlohmann/json.hpp>

#include "arch/arch_config.h"
#include "arch/checksum.h"
#include "arch/chip_area.h"
#include "arch/error.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/pipeline.h"
#include "reports/report.h"
#include "sim/cosim.h"
#include "sim/run_report.h"
#include "cli/tensor_files.h"

namespace npusim::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string compilerJson(const SweepPoint& point) {
    return Json{{"fusion", point.fusion}, {"precision", point.precision}, {"dims", point.dims}}.dump();
}

/// Fills the row's figures from a run's report.
void summarise(SweepRow& row, const reports::Report& report) {
    row.totalCycles = report.totalCycles;
    row.timeSeconds = report.clockHz > 0 ? static_cast<double>(report.totalCycles) / report.clockHz : 0;
    Json utilization = Json::object();
    for (const reports::UnitReport& unit : report.units) {
        utilization[unit.name] = unit.utilization;
        if (unit.name.ends_with(".tensor")) row.tensorUtilization = unit.utilization;
    }
    row.utilization = utilization.dump();
    row.dramBytes = report.dramBytesRead + report.dramBytesWritten;
    for (const reports::OpReport& op : report.ops) {
        row.spills += op.spillCount;
        row.reformats += op.reformatCount;
    }
    std::map<std::string, uint64_t> kinds;
    for (const reports::Finding& f : report.findings) ++kinds[f.kind];
    row.findings = Json(kinds).dump();
    row.findingsTotal = report.findings.size();
    row.energyPj = report.energy.totalPj();
    row.averageWatts = report.energy.averageWatts;
    row.peakWatts = report.energy.peakWatts;
}

}  // namespace

std::string sweepPointKey(const SweepPoint& point, bool timingOnly) {
    return sweepPointKey(point, timingOnly, fileSha256(point.model.string()));
}

std::string sweepPointKey(const SweepPoint& point, bool timingOnly, const std::string& modelSha256) {
    const ArchConfig config = loadArchConfig(point.preset, point.archOverrides);
    const std::string text = modelSha256 + "\n" + archConfigHash(config) + "\n" + compilerJson(point) + "\n" +
                             (timingOnly ? "timing-only" : "values");
    return sha256Hex(std::as_bytes(std::span(text)));
}

ImportedModel importSweepModel(const SweepPoint& point) {
    ImportedModel model;
    model.sha256 = fileSha256(point.model.string());
    try {
        model.graph = compiler::importOnnx(point.model, {}, point.dims);
    } catch (const std::exception& e) {
        model.error = e.what();
    }
    return model;
}

SweepRow runSweepPoint(const SweepPoint& point, bool timingOnly) {
    return runSweepPoint(point, timingOnly, importSweepModel(point));
}

SweepRow runSweepPoint(const SweepPoint& point, bool timingOnly, ImportedModel model) {
    const auto start = std::chrono::steady_clock::now();
    const ArchConfig config = loadArchConfig(point.preset, point.archOverrides);
    SweepRow row;
    row.key = sweepPointKey(point, timingOnly, model.sha256);
    row.sweepIndex = static_cast<int64_t>(point.index);
    row.model = point.model.stem().string();
    row.modelPath = point.model.string();
    row.modelSha256 = model.sha256;
    row.preset = point.preset;
    row.params = point.params;
    row.config = archConfigFileToJson(toArchConfigFile(config));
    row.compiler = compilerJson(point);
    row.npusimVersion = NPUSIM_VERSION;
    row.peCount = static_cast<uint64_t>(config.tensor.rows) * config.tensor.cols;
    row.sramBytes = config.sram.sizeBytes;
    row.areaMm2 = totalArea(chipArea(config));
    row.utilization = row.findings = "{}";
    try {
        if (!model.graph) throw InputError(model.error);
        compiler::CompileOptions options;
        options.fusion = point.fusion;
        options.precision.precision = *compiler::parsePrecision(point.precision);
        if (!point.calibrateInputs.empty()) {
            options.calibrationInputs = [&point](const compiler::Graph& graph) {
                return readCalibrationSets(point.calibrateInputs, graph);
            };
        }
        options.dims = point.dims;
        const compiler::Compilation compilation =
            compiler::compileGraph(std::move(*model.graph), config, row.model, model.sha256, options);
        const ArtifactManifest& manifest = compilation.artifact.manifest;
        sim::CoSimOptions simulation;
        simulation.timingOnly = timingOnly;
        const sim::CoSimResult result =
            sim::runCoSimulation(config, compilation.artifact, randomInputs(manifest.inputs, 1), simulation);
        summarise(row, sim::buildRunReport(config, result, timingOnly));
    } catch (const std::exception& e) {
        row.status = "failed";
        row.error = e.what();
    }
    row.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return row;
}

}  // namespace npusim::cli
