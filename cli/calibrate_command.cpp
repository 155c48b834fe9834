// npusim calibrate --arch PRESET [-o params.json] [--candidates N]: fits the cost model's
// weights against the simulator on a microbenchmark suite and reports how well estimates
// match on a held-out split (docs/SWEEPS.md).
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "arch/error.h"
#include "compiler/cost/cost_params.h"
#include "cli/calibrate/calibration.h"
#include "cli/commands.h"
#include "cli/output_files.h"

namespace npusim::cli {
namespace {

struct CalibrateOptions {
    ArchOptions arch;
    std::string output, samples;
    size_t candidates = 6;
};

nlohmann::ordered_json scoreJson(const CalibrationScore& s) {
    return {{"mape", s.mape}, {"max_error", s.maxError}, {"kendall_tau", s.tau}, {"samples", s.samples},
            {"rankings", s.rankings}, {"energy_mape", s.energyMape}, {"energy_max_error", s.energyMaxError}};
}

void printScore(const char* label, const CalibrationScore& s) {
    std::printf("  %-28s MAPE %6.2f%%   max error %6.2f%%   Kendall tau %.3f  (%zu ops, %zu candidate rankings); "
                "energy MAPE %6.2f%%, max error %6.2f%%\n",
                label, s.mape * 100, s.maxError * 100, s.tau, s.samples, s.rankings, s.energyMape * 100, s.energyMaxError * 100);
}

/// The samples as CSV: each op's features (under the fitted DMA timing), what either model
/// estimated and what the simulator took.
std::string samplesCsv(const std::vector<CalibrationSample>& samples, const ArchConfig& config,
                       const compiler::CostParams& before, const compiler::CostParams& after) {
    std::string csv = "bench,op,problem,held_out";
    for (size_t i = 0; i < compiler::kCostFeatures; ++i) {
        csv += ',';
        csv += compiler::costFeatureName(static_cast<compiler::CostFeature>(i));
    }
    csv += ",estimate_before,estimate_after,simulated,energy_estimate_before,energy_estimate_after,energy_simulated\n";
    for (const CalibrationSample& s : samples) {
        std::vector<std::string> fields{s.bench, s.op, std::to_string(s.problem), s.heldOut ? "1" : "0"};
        for (double f : estimateFeatures(s, config, after)) fields.push_back(std::to_string(f));
        fields.push_back(std::to_string(estimateCycles(s, config, before)));
        fields.push_back(std::to_string(estimateCycles(s, config, after)));
        fields.push_back(std::to_string(s.simulated));
        fields.push_back(std::to_string(estimateEnergy(s, config, before)));
        fields.push_back(std::to_string(estimateEnergy(s, config, after)));
        fields.push_back(std::to_string(s.simulatedEnergy));
        for (size_t i = 0; i < fields.size(); ++i) {
            if (i > 0) csv += ',';
            csv += fields[i];
        }
        csv += '\n';
    }
    return csv;
}

void calibrate(const CalibrateOptions& o) {
    if (!o.output.empty()) checkOutputFile("-o", o.output);
    if (!o.samples.empty()) checkOutputFile("--samples", o.samples);
    const ArchConfig config = o.arch.load();
    const std::vector<Microbenchmark> suite = microbenchmarkSuite(config);
    std::printf("calibrating the cost model for %s (config %s): %zu microbenchmarks, up to %zu tile candidates each\n",
                config.name.c_str(), archConfigHash(config).c_str(), suite.size(), o.candidates);
    const std::vector<CalibrationSample> samples =
        measureSuite(config, suite, o.candidates, [](const std::string& line) { std::printf("  %s\n", line.c_str()); });
    const compiler::CostParams before;
    const compiler::CostParams after = fitCostParams(samples, config);
    const CalibrationScore trainBefore = scoreCostParams(samples, config, before, false);
    const CalibrationScore trainAfter = scoreCostParams(samples, config, after, false);
    const CalibrationScore testBefore = scoreCostParams(samples, config, before, true);
    const CalibrationScore testAfter = scoreCostParams(samples, config, after, true);
    std::printf("weights:");
    for (size_t i = 0; i < compiler::kCostFeatures; ++i) {
        std::printf(" %s %.4g", std::string(compiler::costFeatureName(static_cast<compiler::CostFeature>(i))).c_str(),
                    after.weights[i]);
    }
    std::printf("; DMA: %.3g of the DRAM bandwidth, %.3g cycles per burst; energy scale %.3g\ntraining split:\n",
                after.dmaBandwidth, after.burstCycles, after.energyScale);
    printScore("analytical model", trainBefore);
    printScore("calibrated", trainAfter);
    std::printf("held-out split:\n");
    printScore("analytical model", testBefore);
    printScore("calibrated", testAfter);
    OutputFiles files;
    if (!o.samples.empty()) files.stage(o.samples, samplesCsv(samples, config, before, after));
    if (!o.output.empty()) {
        const nlohmann::ordered_json extra = {{"microbenchmarks", suite.size()},
                                              {"training", {{"before", scoreJson(trainBefore)}, {"after", scoreJson(trainAfter)}}},
                                              {"held_out", {{"before", scoreJson(testBefore)}, {"after", scoreJson(testAfter)}}}};
        files.stage(o.output, compiler::costParamsToJson(after, config.name, extra.dump()));
    }
    files.commit();
    if (!o.output.empty()) std::printf("cost parameters: %s (use with --cost-params)\n", o.output.c_str());
    if (!o.samples.empty()) std::printf("samples: %s\n", o.samples.c_str());
}

}  // namespace

void addCalibrateCommand(CLI::App& app) {
    CLI::App* command = app.add_subcommand("calibrate", "fit the compiler's cost model to the simulator on microbenchmarks");
    auto o = std::make_shared<CalibrateOptions>();
    o->arch.addTo(*command);
    command->add_option("-o,--output", o->output, "write the fitted weights here (JSON, for --cost-params)");
    command->add_option("--samples", o->samples, "write every microbenchmark op's features, estimates and cycles (CSV)");
    command->add_option("--candidates", o->candidates, "tile candidates simulated per op")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    command->callback([o] { calibrate(*o); });
}

}  // namespace npusim::cli
