#include "cli/calibrate/calibration.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include "arch/error.h"
#include "compiler/graph/parser.h"
#include "compiler/pipeline.h"
#include "compiler/tiling/tiling.h"
#include "reports/op_spans.h"
#include "reports/report.h"
#include "runtime/runtime.h"
#include "cli/child_process.h"
#include "sim/cosim.h"

namespace npusim::cli {
namespace {

constexpr unsigned kSimulationTimeoutSeconds = 1800;

/// An artifact to simulate and the samples (by op id) it yields.
struct Run {
    Artifact artifact;
    std::map<uint32_t, CalibrationSample> samples;
};

/// Up to `count` of `n` indices, spread evenly from the first to the last.
std::vector<size_t> spread(size_t n, size_t count) {
    std::vector<size_t> picked;
    if (n == 0 || count == 0) return picked;
    if (count >= n || count == 1) {
        for (size_t i = 0; i < std::min(n, count); ++i) picked.push_back(count == 1 ? 0 : i);
        return picked;
    }
    for (size_t i = 0; i < count; ++i) {
        const size_t index = (i * (n - 1) + (count - 1) / 2) / (count - 1);
        if (picked.empty() || picked.back() != index) picked.push_back(index);
    }
    return picked;
}

/// The run of one compilation: a sample per op the NPU executes with a schedule.
Run runOf(const compiler::Compilation& c, const std::string& bench, size_t problem, bool oneProblem,
          size_t& nextProblem) {
    Run run{c.artifact, {}};
    const std::set<compiler::ValueId> resident = c.memory.residentValues();
    for (const compiler::TileOp& op : c.tiles.ops) {
        if (std::holds_alternative<compiler::HostTiles>(op)) continue;
        const uint32_t opId = compiler::tileOpId(op);
        CalibrationSample sample;
        sample.bench = bench;
        sample.op = c.graph.nodes.at(opId).name;
        sample.problem = oneProblem ? problem : nextProblem++;
        sample.tiles = std::make_shared<const compiler::TileOp>(op);
        sample.resident = resident;
        run.samples.emplace(opId, sample);
    }
    return run;
}

/// The compilations of one microbenchmark: its op with several tile candidates, or as the
/// compiler picks.
std::vector<Run> compileBench(const Microbenchmark& bench, const ArchConfig& config, size_t candidates,
                              size_t& nextProblem) {
    compiler::CompileOptions options;
    options.fusion = !bench.candidates;  // a single op has nothing to fuse; a conv fuses its im2col
    const compiler::Compilation base =
        compiler::compileGraph(compiler::parseGraph(bench.graphIr), config, bench.name, bench.name, options);
    if (!bench.candidates) return {runOf(base, bench.name, 0, false, nextProblem)};
    const size_t problem = nextProblem++;
    const compiler::CostModel model(config);
    const compiler::TileOp& op = base.tiles.ops.front();
    std::vector<compiler::FixedSchedules> fixed;
    if (const auto* gemm = std::get_if<compiler::GemmTiles>(&op)) {
        std::vector<compiler::GemmSchedule> all = compiler::gemmCandidates(gemm->problem, config, model);
        std::stable_sort(all.begin(), all.end(),
                         [](const auto& a, const auto& b) { return a.estimate.totalCycles < b.estimate.totalCycles; });
        for (size_t i : spread(all.size(), candidates)) fixed.push_back({all[i], std::nullopt});
    } else if (const auto* vector = std::get_if<compiler::VectorTiles>(&op); vector && vector->kernels.size() == 1) {
        std::vector<compiler::VectorSchedule> all = compiler::vectorCandidates(vector->kernels[0].problem, config, model);
        std::stable_sort(all.begin(), all.end(),
                         [](const auto& a, const auto& b) { return a.estimate.totalCycles < b.estimate.totalCycles; });
        for (size_t i : spread(all.size(), candidates)) fixed.push_back({std::nullopt, all[i]});
    } else {
        throw RunError("microbenchmark " + bench.name + " is not a single GEMM or single-kernel vector op");
    }
    std::vector<Run> runs;
    for (const compiler::FixedSchedules& schedules : fixed) {
        options.fixed = schedules;
        runs.push_back(runOf(compiler::compileGraph(compiler::parseGraph(bench.graphIr), config, bench.name, bench.name, options),
                             bench.name, problem, true, nextProblem));
    }
    return runs;
}

/// In the child: simulates every run timing-only, one after the other on one system; a line
/// "<run> <op id> <cycles> <energy pJ>" per op that executed (its dynamic energy as reports
/// count it over the run's events).
std::string simulateRuns(const ArchConfig& config, const std::vector<Run>& runs) {
    trace::Recorder recorder;
    std::ostringstream out;
    std::function<sim::DramTraffic()> dram;
    sim::runSystem(
        config, &recorder, true,
        [&](driver::Driver& driver) {
            runtime::Runtime runtime(driver, runtime::kDefaultJobTimeoutCycles, {config.host.cpuOpsPerCycle});
            for (size_t r = 0; r < runs.size(); ++r) {
                const ArtifactManifest& manifest = runs[r].artifact.manifest;
                const runtime::LoadedModel model = runtime.load(runs[r].artifact);
                std::map<std::string, Tensor> inputs;
                for (const TensorBinding& b : manifest.inputs) inputs[b.name] = Tensor::zeros(b.dtype, b.shape);
                const size_t first = recorder.events().size();
                const uint64_t misses = dram().rowMisses;
                const runtime::RunResult result = runtime.run(model, inputs);
                std::vector<reports::OpReport> ops;
                for (const OpRecord& record : manifest.ops) {
                    reports::OpReport op;
                    op.opId = record.opId;
                    op.commandBytes = record.commandBytes;
                    ops.push_back(op);
                }
                reports::RunRecord run{config, manifest, recorder, result.job.startCycle, result.job.cycles};
                run.inferenceRowMisses = dram().rowMisses - misses;
                run.firstEvent = first;
                reports::measureEnergy(run, ops);
                std::map<uint32_t, double> energy;
                for (const reports::OpReport& op : ops) energy[op.opId] = op.energyPj;
                for (const auto& [opId, span] : reports::opSpans(recorder, first)) {
                    out << r << " " << opId << " " << span.cycles() << " " << energy[opId] << "\n";
                }
                runtime.unload(model);
            }
        },
        &dram);
    return out.str();
}

/// Kendall's tau-b of two rankings of the same items.
double kendallTau(const std::vector<double>& a, const std::vector<double>& b) {
    double concordant = 0, discordant = 0, tiesA = 0, tiesB = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        for (size_t j = i + 1; j < a.size(); ++j) {
            const double da = a[i] - a[j], db = b[i] - b[j];
            if (da == 0 && db == 0) continue;
            if (da == 0) {
                ++tiesA;
            } else if (db == 0) {
                ++tiesB;
            } else if ((da > 0) == (db > 0)) {
                ++concordant;
            } else {
                ++discordant;
            }
        }
    }
    const double denominator = std::sqrt((concordant + discordant + tiesA) * (concordant + discordant + tiesB));
    return denominator > 0 ? (concordant - discordant) / denominator : 1.0;
}

/// Solves the symmetric system `a x = b` (Gaussian elimination with partial pivoting).
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
    const size_t n = b.size();
    for (size_t col = 0; col < n; ++col) {
        size_t pivot = col;
        for (size_t row = col + 1; row < n; ++row) {
            if (std::abs(a[row][col]) > std::abs(a[pivot][col])) pivot = row;
        }
        std::swap(a[col], a[pivot]);
        std::swap(b[col], b[pivot]);
        if (a[col][col] == 0) continue;
        for (size_t row = col + 1; row < n; ++row) {
            const double factor = a[row][col] / a[col][col];
            for (size_t k = col; k < n; ++k) a[row][k] -= factor * a[col][k];
            b[row] -= factor * b[col];
        }
    }
    std::vector<double> x(n, 0.0);
    for (size_t row = n; row-- > 0;) {
        double sum = b[row];
        for (size_t k = row + 1; k < n; ++k) sum -= a[row][k] * x[k];
        x[row] = a[row][row] != 0 ? sum / a[row][row] : 0.0;
    }
    return x;
}

/// The weights minimising the mean absolute relative error sum(|(w . f) / y - 1|) over the
/// training samples for the DMA timing of `params`, and that sum: least squares on the rows
/// f / y against 1, reweighted by each row's error (iteratively reweighted least squares for
/// the absolute error, none negative), with a small pull towards the analytical weights so
/// that a feature the training set never varies keeps its default.
std::pair<compiler::CostParams, double> fitWeights(const std::vector<CalibrationSample>& samples,
                                                   const ArchConfig& config, compiler::CostParams params) {
    constexpr int kReweightings = 12;
    const compiler::CostParams defaults;
    constexpr size_t n = compiler::kCostFeatures;
    std::vector<std::array<double, n>> rows;
    for (const CalibrationSample& s : samples) {
        if (s.heldOut) continue;
        rows.push_back(estimateFeatures(s, config, params));
        for (double& f : rows.back()) f /= s.simulated;
    }
    std::vector<double> rowWeights(rows.size(), 1.0);
    auto errorOf = [&](const std::array<double, n>& row) {
        double estimate = 0;
        for (size_t i = 0; i < n; ++i) estimate += params.weights[i] * row[i];
        return std::abs(estimate - 1);
    };
    for (int iteration = 0; iteration <= kReweightings; ++iteration) {
        std::vector<std::vector<double>> normal(n, std::vector<double>(n, 0.0));
        std::vector<double> rhs(n, 0.0);
        for (size_t r = 0; r < rows.size(); ++r) {
            for (size_t i = 0; i < n; ++i) {
                rhs[i] += rowWeights[r] * rows[r][i];
                for (size_t j = 0; j < n; ++j) normal[i][j] += rowWeights[r] * rows[r][i] * rows[r][j];
            }
        }
        double trace = 0;
        for (size_t i = 0; i < n; ++i) trace += normal[i][i];
        const double ridge = 1e-6 * trace / n;
        for (size_t i = 0; i < n; ++i) {
            normal[i][i] += ridge;
            rhs[i] += ridge * defaults.weights[i];
        }
        // Weights are costs: none may be negative. A feature whose weight comes out negative
        // is held at zero and the rest solved again (an active set, at most n rounds).
        std::array<bool, n> zero{};
        std::vector<double> weights;
        for (size_t round = 0; round <= n; ++round) {
            std::vector<std::vector<double>> a = normal;
            std::vector<double> b = rhs;
            for (size_t i = 0; i < n; ++i) {
                if (!zero[i]) continue;
                for (size_t j = 0; j < n; ++j) a[i][j] = a[j][i] = 0;
                a[i][i] = 1;
                b[i] = 0;
            }
            weights = solve(a, b);
            const auto negative = std::min_element(weights.begin(), weights.end());
            if (*negative >= 0) break;
            zero[static_cast<size_t>(negative - weights.begin())] = true;
        }
        for (size_t i = 0; i < n; ++i) params.weights[i] = std::max(0.0, weights[i]);
        for (size_t r = 0; r < rows.size(); ++r) rowWeights[r] = 1 / std::max(errorOf(rows[r]), 1e-4);
    }
    double error = 0;
    for (const auto& row : rows) error += errorOf(row);
    return {params, error};
}

}  // namespace

std::array<double, compiler::kCostFeatures> estimateFeatures(const CalibrationSample& s, const ArchConfig& config,
                                                              const compiler::CostParams& params) {
    const compiler::CostModel model(config, params, s.resident);
    if (const auto* gemm = std::get_if<compiler::GemmTiles>(s.tiles.get())) {
        return model.estimateGemm(gemm->problem, gemm->schedule).features;
    }
    return model.estimateTileOp(*s.tiles).features;
}

double estimateEnergy(const CalibrationSample& s, const ArchConfig& config, const compiler::CostParams& params) {
    const compiler::CostModel model(config, params, s.resident);
    if (const auto* gemm = std::get_if<compiler::GemmTiles>(s.tiles.get())) {
        return model.estimateGemm(gemm->problem, gemm->schedule).energyPj;
    }
    return model.estimateTileOp(*s.tiles).energyPj;
}

double estimateCycles(const CalibrationSample& s, const ArchConfig& config, const compiler::CostParams& params) {
    const std::array<double, compiler::kCostFeatures> features = estimateFeatures(s, config, params);
    double total = 0;
    for (size_t i = 0; i < compiler::kCostFeatures; ++i) total += params.weights[i] * features[i];
    return total;
}

std::vector<CalibrationSample> measureSuite(const ArchConfig& config, const std::vector<Microbenchmark>& suite,
                                            size_t candidates, const std::function<void(const std::string&)>& progress) {
    std::vector<Run> runs;
    size_t problems = 0;
    for (const Microbenchmark& bench : suite) {
        for (Run& run : compileBench(bench, config, candidates, problems)) runs.push_back(std::move(run));
    }
    progress("compiled " + std::to_string(suite.size()) + " microbenchmarks into " + std::to_string(runs.size()) +
             " artifacts (" + std::to_string(problems) + " ops); simulating them");
    const ChildOutcome child = runInChild([&] { return simulateRuns(config, runs); }, kSimulationTimeoutSeconds);
    if (!child.ok) throw RunError("the calibration's simulation " + child.failure);
    std::istringstream lines(child.text);
    size_t run = 0;
    uint32_t opId = 0;
    uint64_t cycles = 0;
    double energy = 0;
    while (lines >> run >> opId >> cycles >> energy) {
        const auto sample = runs.at(run).samples.find(opId);
        if (sample == runs[run].samples.end()) continue;
        sample->second.simulated = static_cast<double>(cycles);
        sample->second.simulatedEnergy = energy;
    }
    std::vector<CalibrationSample> samples;
    for (const Run& r : runs) {
        for (const auto& [id, sample] : r.samples) {
            if (sample.simulated <= 0) continue;  // an op without commands (a view)
            samples.push_back(sample);
            samples.back().heldOut = sample.problem % 3 == 2;
        }
    }
    return samples;
}

compiler::CostParams fitCostParams(const std::vector<CalibrationSample>& samples, const ArchConfig& config) {
    // Pattern search over the DMA timing in log steps (the weights are linear: solved exactly
    // for every point tried); when no step improves, the step's logarithm is halved, down to 1%.
    // The timing stays physical: a stream attains at most the DRAM's bandwidth, and a channel
    // issues at most a burst per cycle.
    struct Bounds {
        double compiler::CostParams::*field;
        double min, max;
    };
    constexpr Bounds kBounds[] = {{&compiler::CostParams::dmaBandwidth, 1.0 / 16, 1.0},
                                  {&compiler::CostParams::burstCycles, 1.0, 16.0}};
    auto [best, error] = fitWeights(samples, config, {});
    for (double step = 2.0; step > 1.01; step = std::sqrt(step)) {
        for (bool improved = true; improved;) {
            improved = false;
            for (const auto& [field, min, max] : kBounds) {
                for (double factor : {step, 1 / step}) {
                    compiler::CostParams trial = best;
                    trial.*field = std::clamp(best.*field * factor, min, max);
                    if (trial.*field == best.*field) continue;
                    auto [fitted, trialError] = fitWeights(samples, config, trial);
                    if (trialError < error * (1 - 1e-9)) {
                        best = fitted;
                        error = trialError;
                        improved = true;
                    }
                }
            }
        }
    }
    // The energy scale minimising the training samples' absolute relative error
    // sum |scale * r - 1| with r = estimate / simulated, which is sum r |scale - 1/r|: the
    // median of 1/r weighted by r.
    std::vector<std::pair<double, double>> inverses;  // (1/r, r)
    double weights = 0;
    for (const CalibrationSample& s : samples) {
        if (s.heldOut || s.simulatedEnergy <= 0) continue;
        const double ratio = estimateEnergy(s, config, {}) / s.simulatedEnergy;
        if (ratio <= 0) continue;
        inverses.emplace_back(1 / ratio, ratio);
        weights += ratio;
    }
    std::sort(inverses.begin(), inverses.end());
    double below = 0;
    for (const auto& [inverse, weight] : inverses) {
        below += weight;
        if (below >= weights / 2) {
            best.energyScale = inverse;
            break;
        }
    }
    best.archHash = archConfigHash(config);
    return best;
}

CalibrationScore scoreCostParams(const std::vector<CalibrationSample>& samples, const ArchConfig& config,
                                 const compiler::CostParams& params, bool heldOut) {
    CalibrationScore score;
    size_t energySamples = 0;
    std::map<size_t, std::pair<std::vector<double>, std::vector<double>>> rankings;
    for (const CalibrationSample& s : samples) {
        if (s.heldOut != heldOut) continue;
        const double e = estimateCycles(s, config, params);
        const double error = std::abs(e - s.simulated) / s.simulated;
        score.mape += error;
        score.maxError = std::max(score.maxError, error);
        ++score.samples;
        if (s.simulatedEnergy > 0) {
            const double energyError = std::abs(estimateEnergy(s, config, params) - s.simulatedEnergy) / s.simulatedEnergy;
            score.energyMape += energyError;
            score.energyMaxError = std::max(score.energyMaxError, energyError);
            ++energySamples;
        }
        rankings[s.problem].first.push_back(e);
        rankings[s.problem].second.push_back(s.simulated);
    }
    if (score.samples) score.mape /= static_cast<double>(score.samples);
    if (energySamples) score.energyMape /= static_cast<double>(energySamples);
    for (const auto& [problem, ranking] : rankings) {
        if (ranking.first.size() < 2) continue;
        score.tau += kendallTau(ranking.first, ranking.second);
        ++score.rankings;
    }
    if (score.rankings) score.tau /= static_cast<double>(score.rankings);
    return score;
}

}  // namespace npusim::cli
