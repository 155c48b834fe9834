// Conformance cases: scan, compile, simulate every test data set in a child process, compare.
#include "cli/conformance.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <set>

#include "arch/error.h"
#include "compiler/frontend/backend_test_deviations.h"
#include "compiler/frontend/onnx_scan.h"
#include "compiler/frontend/tensor_proto.h"
#include "compiler/pipeline.h"
#include "reports/report.h"
#include "runtime/runtime.h"
#include "cli/child_process.h"
#include "sim/cosim.h"
#include "cli/tensor_files.h"

namespace npusim::cli {
namespace {

namespace fs = std::filesystem;

struct DataSet {
    fs::path directory;
    std::map<std::string, Tensor> inputs;    ///< fed at run time
    std::map<std::string, Tensor> bindings;  ///< bound at compile time: they decide shapes
    std::vector<Tensor> expected;
};

/// One artifact and the data sets it runs.
struct Job {
    Artifact artifact;
    std::vector<DataSet> sets;
};

std::vector<DataSet> readDataSets(const fs::path& directory) {
    std::vector<fs::path> dirs;
    for (const auto& entry : fs::directory_iterator(directory)) {
        if (entry.is_directory() && entry.path().filename().string().starts_with("test_data_set_")) {
            dirs.push_back(entry.path());
        }
    }
    std::sort(dirs.begin(), dirs.end());
    if (dirs.empty()) throw InputError("case '" + directory.string() + "' has no test_data_set_* directory");
    const fs::path model = directory / "model.onnx";
    const std::vector<compiler::FedInput> fed = compiler::fedInputs(model);
    const std::set<std::string> shapeInputs = compiler::shapeDecidingInputs(model);
    std::vector<DataSet> sets;
    for (const fs::path& dir : dirs) {
        DataSet set{dir, {}, {}, {}};
        for (size_t i = 0; i < fed.size(); ++i) {
            Tensor tensor = compiler::readTensorProto(dir / ("input_" + std::to_string(i) + ".pb"), fed[i].dtype);
            (shapeInputs.contains(fed[i].name) ? set.bindings : set.inputs)[fed[i].name] = std::move(tensor);
        }
        sets.push_back(std::move(set));
    }
    return sets;
}

compiler::CompileOptions bindingsOnly(const std::map<std::string, Tensor>& bindings) {
    compiler::CompileOptions options;
    options.bindings = bindings;
    return options;
}

/// Compiles the case: once, or once per data set when inputs decide shapes. Counts the ops
/// of the first compilation into `result`.
std::vector<Job> compileJobs(const fs::path& directory, const ArchConfig& config, CaseResult& result) {
    std::vector<Job> jobs;
    for (DataSet& set : readDataSets(directory)) {
        if (jobs.empty() || !set.bindings.empty()) {
            const compiler::Compilation compilation =
                compiler::compileModel(directory / "model.onnx", config, bindingsOnly(set.bindings));
            if (jobs.empty()) {
                for (const compiler::TileOp& op : compilation.tiles.ops) {
                    ++(std::holds_alternative<compiler::HostTiles>(op) ? result.cpuOps : result.npuOps);
                }
            }
            jobs.push_back({compilation.artifact, {}});
        }
        set.expected = readExpectedOutputs(set.directory, jobs.back().artifact.manifest.outputs, jobs.back().artifact.manifest.sizes);
        jobs.back().sets.push_back(std::move(set));
    }
    return jobs;
}

/// The first output of `actual` whose shape or type differs from `expected`'s; nullopt when none does.
std::optional<size_t> shapeMismatch(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected) {
    for (size_t i = 0; i < actual.size() && i < expected.size(); ++i) {
        if (actual[i].shape != expected[i].shape || actual[i].dtype != expected[i].dtype) return i;
    }
    return std::nullopt;
}

/// The first op of `set`'s run, or the run itself, that beat its roofline: the run's report
/// is built from the trace events of its window.
std::optional<std::string> boundViolation(const ArchConfig& config, const ArtifactManifest& manifest,
                                          const trace::Recorder& trace, const driver::JobResult& job) {
    const reports::Report report = reports::buildReport({config, manifest, trace, job.startCycle, job.cycles});
    const std::vector<std::string> violations = reports::boundViolations(report);
    if (violations.empty()) return std::nullopt;
    return violations.front();
}

/// The child's verdict, one line: "passed|failed <TAB> reason <TAB> cycles". With `randomValues`,
/// outputs are compared by shape and type only. Every run must also take at least the cycles
/// its rooflines allow (reports::boundViolations).
std::string simulate(const ArchConfig& config, const std::vector<Job>& jobs, const Tolerance& tolerance, bool randomValues) {
    std::string status = "passed", reason;
    uint64_t cycles = 0;
    try {
        trace::Recorder trace;
        sim::runSystem(config, &trace, false, [&](driver::Driver& driver) {
            runtime::Runtime runtime(driver, runtime::kDefaultJobTimeoutCycles, {config.host.cpuOpsPerCycle, &trace});
            for (const Job& job : jobs) {
                const runtime::LoadedModel model = runtime.load(job.artifact);
                for (const DataSet& set : job.sets) {
                    const runtime::RunResult run = runtime.run(model, set.inputs);
                    cycles = run.job.cycles;
                    if (const std::optional<std::string> violation =
                            boundViolation(config, job.artifact.manifest, trace, run.job)) {
                        status = "failed";
                        reason = set.directory.filename().string() + ": " + *violation;
                        break;
                    }
                    if (randomValues) {
                        if (const std::optional<size_t> i = shapeMismatch(run.outputs, set.expected)) {
                            status = "failed";
                            reason = set.directory.filename().string() + ": output " + std::to_string(*i) +
                                     " differs from ONNX's in shape or type";
                            break;
                        }
                        continue;
                    }
                    const reports::CheckResult check = compareOutputs(job.artifact.manifest.outputs, run.outputs,
                                                                      set.expected, tolerance.rtol, tolerance.atol);
                    if (!check.passed) {
                        status = "failed";
                        reason = set.directory.filename().string() + ": output '" + check.worstOutput +
                                 "' differs from ONNX's (max abs error " + std::to_string(check.maxAbsError) + ")";
                        break;
                    }
                }
                runtime.unload(model);
                if (status == "failed") break;
            }
        });
    } catch (const std::exception& e) {
        status = "failed";
        reason = e.what();
    }
    std::replace(reason.begin(), reason.end(), '\t', ' ');
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    return status + "\t" + reason + "\t" + std::to_string(cycles);
}

}  // namespace

std::string_view caseStatusName(CaseStatus status) {
    switch (status) {
        case CaseStatus::Passed: return "passed";
        case CaseStatus::Failed: return "failed";
        case CaseStatus::Skipped: return "skipped";
    }
    return "?";
}

std::vector<fs::path> findCases(const fs::path& suite, const std::string& filter) {
    if (!fs::is_directory(suite)) throw InputError("suite '" + suite.string() + "' is not a directory");
    std::regex pattern;
    try {
        pattern = std::regex(filter.empty() ? std::string(".*") : filter);
    } catch (const std::regex_error& e) {
        throw InputError("--filter '" + filter + "' is not a valid regular expression: " + e.what());
    }
    std::vector<fs::path> cases;
    for (const auto& entry : fs::directory_iterator(suite)) {
        if (!fs::is_regular_file(entry.path() / "model.onnx")) continue;
        if (std::regex_search(entry.path().filename().string(), pattern)) cases.push_back(entry.path());
    }
    std::sort(cases.begin(), cases.end());
    return cases;
}

CaseResult runConformanceCase(const fs::path& directory, const ArchConfig& config, const Tolerance& tolerance,
                              unsigned timeoutSeconds) {
    CaseResult result;
    result.name = directory.filename().string();
    try {
        const std::optional<compiler::BackendTestDeviation> deviation = compiler::backendTestDeviation(result.name);
        if (deviation && !deviation->randomValues) {
            result.status = CaseStatus::Skipped;
            result.reason = deviation->reason;
            return result;
        }
        const std::vector<std::string> features = compiler::unsupportedFeatures(directory / "model.onnx");
        if (!features.empty()) {
            result.status = CaseStatus::Skipped;
            result.reason = "uses what npusim does not take:";
            for (const std::string& feature : features) result.reason += " " + feature + (&feature == &features.back() ? "" : ",");
            return result;
        }
        const std::vector<Job> jobs = compileJobs(directory, config, result);
        const bool randomValues = deviation && deviation->randomValues;
        const ChildOutcome child = runInChild([&] { return simulate(config, jobs, tolerance, randomValues); }, timeoutSeconds);
        const std::string line = child.ok ? child.text : "failed\tsimulation " + child.failure + "\t0";
        const size_t tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
        result.status = line.substr(0, tab1) == "passed" ? CaseStatus::Passed : CaseStatus::Failed;
        result.reason = line.substr(tab1 + 1, tab2 - tab1 - 1);
        if (result.status == CaseStatus::Passed && randomValues) result.reason = deviation->reason;
        result.cycles = std::stoull(line.substr(tab2 + 1));
    } catch (const std::exception& e) {
        result.status = CaseStatus::Failed;
        result.reason = e.what();
    }
    return result;
}

}  // namespace npusim::cli
