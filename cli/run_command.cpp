// npusim run ARTIFACT|MODEL.onnx [--arch ...] [--inputs DIR|random] [--outputs DIR]
//            [--report DIR] [--check] [--expected DIR]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "arch/checksum.h"
#include "arch/error.h"
#include "arch/read_file.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/graph/interpreter.h"
#include "compiler/pipeline.h"
#include "reports/report.h"
#include "reports/text_format.h"
#include "runtime/buckets.h"
#include "runtime/runtime.h"
#include "cli/commands.h"
#include "cli/op_drift.h"
#include "cli/output_files.h"
#include "cli/progress_line.h"
#include "cli/report_directory.h"
#include "sim/cosim.h"
#include "sim/run_report.h"
#include "cli/tensor_files.h"

namespace npusim::cli {
namespace {

struct RunOptions {
    std::string target, inputs = "random", outputs, report, expected, model, vcd;
    std::vector<std::string> rtl;  ///< blocks to run as RTL ("tensor")
    std::vector<std::string> inject;  ///< faults, KIND@N
    uint64_t watchdog = runtime::kDefaultJobTimeoutCycles;
    int retries = -1;  ///< -1: 1 with --inject, else 0
    bool check = false, checkPerOp = false, timingOnly = false, forceArch = false;
    double rtol = 1e-4, atol = 1e-5;
    bool toleranceGiven = false;  ///< --rtol or --atol on the command line
    uint64_t seed = 1;
    int repeat = 0;
    ArchOptions arch;
    CompilerFlags compiler;
};

bool isArtifactFile(const std::string& path) {
    // A directory opens as a stream on Linux: it is refused by the same reason as the rest.
    std::error_code error;
    std::ifstream in(path, std::ios::binary);
    if (!in || std::filesystem::is_directory(path, error)) throw InputError("cannot read '" + path + "': " + unreadableReason(path));
    char magic[6] = {};
    in.read(magic, sizeof magic);
    return std::string(magic, sizeof magic) == "NPUART";
}

/// The tolerance of a reduced-precision run against its own program's semantics, as a fraction
/// of each output's largest magnitude: the NPU sums fp32 products in another order than the
/// interpreter, and a sum that differs in its last bit can round to the neighbouring 16-bit
/// value (2^-8 of it for bf16), a difference later layers carry to every element they mix it into.
constexpr double kProgramTolerance = 1e-2;
/// At int8, an activation quantised after an fp32 op whose last bit differs between the vector
/// unit and the interpreter (a normalisation's rsqrt, a softmax's exp, a GELU) can round one
/// step (1/255 of its range) apart, and the layers after it carry that step.
constexpr double kInt8ProgramTolerance = 5e-2;

/// The artifact to run and the architecture it runs on.
struct Prepared {
    Artifact artifact;
    ArchConfig config;
    std::optional<compiler::Graph> reference;  ///< the model as imported, for --check
    /// Below fp32, for --check: the compiled program's graph, whose semantics the NPU's outputs
    /// must match (absent for an artifact or a bucket: compiled again when checked).
    std::optional<compiler::Graph> program;
};

Prepared prepare(const RunOptions& o) {
    Prepared p;
    if (isArtifactFile(o.target)) {
        // Compiler flags cannot change what is compiled already: refused, not ignored.
        if (const std::vector<std::string> flags = o.compiler.given(); !flags.empty()) {
            throw InputError(flags.front() + " applies when a model is compiled; '" + o.target +
                             "' is an artifact, compiled already: recompile the model with it");
        }
        p.artifact = readArtifact(o.target, o.timingOnly ? ArtifactRead::TimingOnly : ArtifactRead::Whole);
        p.config = validateArchConfig(parseArchConfigFile(p.artifact.manifest.archConfig, o.target));
        if (o.arch.archGiven() || !o.arch.overrides.empty()) {
            const ArchConfig requested = o.arch.load();
            if (archConfigHash(requested) != p.artifact.manifest.archHash) {
                if (!o.forceArch) {
                    throw InputError("artifact '" + o.target + "' was compiled for arch '" +
                                     p.artifact.manifest.archName + "' (config " + p.artifact.manifest.archHash +
                                     "), but --arch/--set ask for '" + requested.name + "' (config " +
                                     archConfigHash(requested) + "); recompile the model for it, or --force-arch");
                }
                std::printf("note: running an artifact compiled for arch '%s' (config %s) on '%s' (config %s): --force-arch\n",
                            p.artifact.manifest.archName.c_str(), p.artifact.manifest.archHash.c_str(),
                            requested.name.c_str(), archConfigHash(requested).c_str());
            }
            p.config = requested;
        }
        if (o.check) {
            if (o.model.empty()) throw InputError("--check on an artifact needs --model MODEL.onnx");
            if (fileSha256(o.model) != p.artifact.manifest.modelHash) {
                throw InputError("model '" + o.model + "' is not the one artifact '" + o.target +
                                 "' was compiled from");
            }
            // A bucketed model is imported at its actual size once the inputs show it.
            if (p.artifact.manifest.buckets.empty()) p.reference = compiler::importOnnx(o.model);
        }
        return p;
    }
    p.config = o.arch.load();
    const ProgressLine progress("compiling " + o.target);
    compiler::Compilation compilation = compiler::compileModel(o.target, p.config, o.compiler.options());
    p.artifact = std::move(compilation.artifact);
    if (o.check) {
        p.reference = std::move(compilation.source);
        if (p.artifact.manifest.buckets.empty()) p.program = std::move(compilation.graph);
    }
    return p;
}

void printSummary(const reports::Report& report) {
    const std::string precision = report.precision == "fp32" ? "" : " at " + report.precision;
    std::printf("%s on %s%s: %llu cycles (%.1f us), roofline efficiency %.1f%% (shape-aware %.1f%%)\n",
                report.model.c_str(), report.arch.c_str(), precision.c_str(), static_cast<unsigned long long>(report.totalCycles),
                static_cast<double>(report.totalCycles) / report.clockHz * 1e6, report.efficiency * 100,
                report.shapeEfficiency * 100);
    for (const reports::UnitReport& unit : report.units) {
        std::printf("  %-22s busy %5.1f%%  (%llu commands)\n", unit.name.c_str(), unit.utilization * 100,
                    static_cast<unsigned long long>(unit.commands));
    }
    if (report.bucket) {
        std::printf("  bucket: %s=%lld (compiled size; the inputs have %s=%lld, padded to it)\n",
                    report.bucket->symbol.c_str(), static_cast<long long>(report.bucket->size),
                    report.bucket->symbol.c_str(), static_cast<long long>(report.bucket->actual));
    }
    std::printf("  DRAM: %llu bytes read, %llu written (%.2f GB/s)\n",
                static_cast<unsigned long long>(report.dramBytesRead),
                static_cast<unsigned long long>(report.dramBytesWritten), report.dramGbps);
    const reports::EnergyReport& energy = report.energy;
    const std::string merit = energy.topsPerWatt() > 0 ? ", " + reports::fixedText(energy.topsPerWatt(), 2) + " TOPS/W" : "";
    std::printf("  energy: %s (%.3f W average, %.3f W peak)%s\n", reports::energyText(energy.totalPj()).c_str(),
                energy.averageWatts, energy.peakWatts, merit.c_str());
    if (report.rtl) {
        for (const reports::RtlUse::Block& block : report.rtl->blocks) {
            std::printf("  RTL %s: %llu commands on the RTL, %llu left to the model\n", block.name.c_str(),
                        static_cast<unsigned long long>(block.onRtl), static_cast<unsigned long long>(block.onModel));
        }
        std::printf("  RTL: %zu commands differ from the timing model\n", report.rtl->differences.size());
    }
    if (report.faults) {
        for (const auto& f : report.faults->injected) {
            std::printf("  fault %s@%llu: %s\n", f.kind.c_str(), static_cast<unsigned long long>(f.at),
                        f.fired ? "injected" : "never reached (the run has fewer such events)");
        }
        for (const std::string& failure : report.faults->jobFailures) std::printf("  job failed, run again: %s\n", failure.c_str());
        if (report.faults->correctedErrors > 0) {
            std::printf("  %llu single-bit DRAM errors corrected by ECC\n",
                        static_cast<unsigned long long>(report.faults->correctedErrors));
        }
        if (report.faults->lostInterrupts > 0) {
            std::printf("  %llu jobs found finished by polling: their interrupt was lost\n",
                        static_cast<unsigned long long>(report.faults->lostInterrupts));
        }
    }
    const RunTiming& t = report.timing;
    if (t.warm && t.steady) {
        std::printf("  timing (host clock): cold %llu cycles, warm %llu, steady %llu (median of %d)\n",
                    static_cast<unsigned long long>(t.cold.cycles), static_cast<unsigned long long>(t.warm->cycles),
                    static_cast<unsigned long long>(t.steady->cycles), t.repeat);
    }
}

void checkOptions(const RunOptions& o) {
    if (o.timingOnly && (o.check || !o.expected.empty() || !o.outputs.empty())) {
        throw InputError("--timing-only computes no values: drop --check, --expected and --outputs");
    }
    for (const std::string& block : o.rtl) {
        if (block != "tensor" && block != "vector") {
            throw InputError("--rtl: no RTL block '" + block + "'; RTL blocks: tensor, vector");
        }
    }
    if (!o.vcd.empty() && o.rtl.empty()) {
        throw InputError("--vcd writes the waveforms of RTL blocks: add --rtl tensor and/or --rtl vector");
    }
}

/// The inputs at their actual size: read from --inputs, or random (a bucketed dim at the size
/// --dim gives it, else at the first bucket's).
std::map<std::string, Tensor> runInputs(const RunOptions& o, const ArtifactManifest& m) {
    const std::string symbol = m.buckets.empty() ? "" : m.buckets.front().symbol;
    if (o.inputs != "random") return readInputs(o.inputs, m.inputs, symbol);
    if (symbol.empty()) return randomInputs(m.inputs, o.seed);
    const std::map<std::string, int64_t> dims = o.compiler.options().dims;
    const auto dim = dims.find(symbol);
    return randomInputs(runtime::resized(m.inputs, symbol, dim == dims.end() ? m.buckets.front().size : dim->second), o.seed);
}

/// The reference outputs of --expected, read before the run so that a bad directory fails fast.
std::vector<Tensor> expectedOutputs(const RunOptions& o, const ArtifactManifest& m, const std::map<std::string, Tensor>& inputs) {
    if (o.expected.empty()) return {};
    if (m.buckets.empty()) return readExpectedOutputs(o.expected, m.outputs, m.sizes);
    const int64_t actual = runtime::actualSize(m, inputs);
    const BucketRecord& bucket = m.buckets[runtime::chooseBucket(m, actual)];
    return readExpectedOutputs(o.expected, runtime::resized(bucket.outputs, bucket.symbol, actual), bucket.sizes);
}

sim::CoSimOptions simulationOptions(const RunOptions& o) {
    sim::CoSimOptions simulation;
    for (const std::string& fault : o.inject) simulation.faults.push_back(hw::parseFaultSpec(fault));
    simulation.jobRetries = o.retries >= 0 ? o.retries : (o.inject.empty() ? 0 : 1);
    simulation.jobTimeoutCycles = o.watchdog;
    simulation.timingOnly = o.timingOnly;
    simulation.repeat = o.repeat;
    simulation.rtlTensor = std::find(o.rtl.begin(), o.rtl.end(), "tensor") != o.rtl.end();
    simulation.rtlVector = std::find(o.rtl.begin(), o.rtl.end(), "vector") != o.rtl.end();
    return simulation;
}

/// The co-simulation, with RTL waveforms (--vcd) written under temporary names as it runs and
/// renamed when it is through, so that a failed run leaves no half-written file under a final name.
sim::CoSimResult simulate(const RunOptions& o, const Prepared& p, const std::map<std::string, Tensor>& inputs) {
    sim::CoSimOptions simulation = simulationOptions(o);
    std::vector<std::string> vcds;  ///< final names
    if (!o.vcd.empty()) {
        const bool both = simulation.rtlTensor && simulation.rtlVector;
        if (simulation.rtlTensor) simulation.tensorVcd = vcds.emplace_back(sim::vcdPathFor(o.vcd, "tensor", both)) + ".part";
        if (simulation.rtlVector) simulation.vectorVcd = vcds.emplace_back(sim::vcdPathFor(o.vcd, "vector", both)) + ".part";
    }
    std::vector<RemovedOnInterrupt> unfinished;
    for (const std::string& vcd : vcds) unfinished.emplace_back(vcd + ".part", RemovedOnInterrupt::Kind::File);
    // Every run of the model dispatches its commands: the cold one, and the warm and steady ones.
    const uint64_t runs = o.repeat > 0 ? 2 + static_cast<uint64_t>(o.repeat) : 1;
    ProgressLine progress("simulating", runs * commandCount(p.artifact.manifest));
    simulation.dispatched = &progress.done();
    sim::CoSimResult result;
    try {
        result = sim::runCoSimulation(p.config, p.artifact, inputs, simulation);
    } catch (...) {
        for (const std::string& vcd : vcds) std::filesystem::remove(vcd + ".part");
        throw;
    }
    for (const std::string& vcd : vcds) {
        std::error_code error;
        std::filesystem::rename(vcd + ".part", vcd, error);
        if (error) throw RunError("--vcd: cannot write '" + vcd + "': " + error.message());
    }
    return result;
}

/// An op result drifts when its error exceeds this fraction of its largest magnitude (--rtol,
/// when given, instead).
constexpr double kDriftTolerance = 1e-2;

/// A fraction as a percentage: "1%", "0.31%".
std::string percentText(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g%%", fraction * 100);
    return text;
}

/// The compiled program's graph of a reduced-precision run, compiled again: an artifact's (at
/// the precision its manifest records) or a bucket's at the inputs' size.
compiler::Graph programGraph(const RunOptions& o, const Prepared& p, const sim::CoSimResult& result) {
    const ArtifactManifest& m = p.artifact.manifest;
    const auto precisionOf = [&](const std::string& name) {
        const std::optional<compiler::Precision> precision = compiler::parsePrecision(name);
        if (!precision) throw InputError("the artifact's manifest names an unknown precision '" + name + "'");
        return *precision;
    };
    compiler::CompileOptions options = o.compiler.options();
    options.precision.precision = precisionOf(m.precision);
    for (const auto& [op, precision] : m.precisionOverrides) options.precision.overrides[op] = precisionOf(precision);
    if (result.bucket) options.dims[result.bucket->symbol] = result.bucket->actual;
    return compiler::compileModel(o.model.empty() ? o.target : o.model, p.config, options).graph;
}

/// "y: max abs error 0.0008, max rel error 0.0031, SNR 52.3 dB, cosine 0.999998, top-1 100%, top-5 100%".
std::string accuracyLine(const reports::OutputAccuracy& a) {
    char line[320];
    std::snprintf(line, sizeof line, "%s: max abs error %.3g, max rel error %.3g, SNR %.1f dB, cosine %.6f", a.name.c_str(),
                  a.maxAbsError, a.maxRelError, a.snrDb, a.cosine);
    std::string text = line;
    if (a.top1 >= 0) {
        std::snprintf(line, sizeof line, ", top-1 %.1f%%, top-5 %.1f%%", a.top1 * 100, a.top5 * 100);
        text += line;
    }
    return text;
}

/// Below fp32: the NPU against its own program (exact but for summation order), then the
/// precision's cost against the fp32 reference (the figures `check` holds already).
void checkAgainstProgram(const RunOptions& o, Prepared& p, const std::map<std::string, Tensor>& inputs,
                         const sim::CoSimResult& result, reports::CheckResult& check, std::vector<std::string>& failures) {
    if (!p.program) p.program = programGraph(o, p, result);
    const std::vector<Tensor> own = compiler::interpretGraph(*p.program, inputs);
    check.program = compareOutputs(result.outputBindings(), result.outputs, own, 0, 0);
    check.program->passed =
        check.program->maxRelError <= (check.precision == "int8" ? kInt8ProgramTolerance : kProgramTolerance);
    std::printf("check against the compiled %s program: %s (max abs error %g, max rel error %g)\n", check.precision.c_str(),
                check.program->passed ? "passed" : "MISMATCH", check.program->maxAbsError, check.program->maxRelError);
    if (!check.program->passed) failures.push_back("outputs differ from the compiled program's semantics");
    std::printf("%s against the fp32 reference interpreter%s:\n", check.precision.c_str(),
                o.toleranceGiven ? (check.passed ? " (within tolerance)" : " (beyond tolerance)") : "");
    for (const reports::OutputAccuracy& output : check.outputs) std::printf("  %s\n", accuracyLine(output).c_str());
    if (o.toleranceGiven && !check.passed) failures.push_back("outputs differ from the fp32 reference beyond the tolerance");
    check.passed = check.program->passed && (!o.toleranceGiven || check.passed);
}

/// --check-per-op: each op result of the compiled program against the reference's, and the
/// first that drifts past the tolerance.
void checkPerOp(const RunOptions& o, Prepared& p, const std::map<std::string, Tensor>& inputs,
                const sim::CoSimResult& result, reports::CheckResult& check) {
    if (!p.program) p.program = programGraph(o, p, result);
    check.perOp = opDrift(*p.reference, *p.program, inputs);
    check.driftTolerance = o.toleranceGiven ? o.rtol : kDriftTolerance;
    const auto first = std::find_if(check.perOp.begin(), check.perOp.end(),
                                    [&](const reports::OpDrift& d) { return !(d.maxRelError <= check.driftTolerance); });
    std::string verdict = "none drifts past " + percentText(check.driftTolerance) + " of its largest magnitude";
    if (first != check.perOp.end()) {
        check.firstDrift = first->op;
        verdict = "the first past " + percentText(check.driftTolerance) + " is op '" + first->op + "' (" + first->output +
                  ": error " + percentText(first->maxRelError) + " of its largest magnitude, cosine " +
                  std::to_string(first->cosine) + ")";
    }
    std::printf("per op, the compiled program against the reference (%zu op results): %s\n", check.perOp.size(),
                verdict.c_str());
}

/// Compares the outputs with the reference interpreter (--check; a bucketed model imported at
/// the inputs' actual size) and with --expected; returns what failed.
std::vector<std::string> checkOutputs(const RunOptions& o, Prepared& p, const std::map<std::string, Tensor>& inputs,
                                      const std::vector<Tensor>& expected, const sim::CoSimResult& result,
                                      reports::Report& report) {
    std::vector<std::string> failures;
    if (o.check && result.bucket) {
        std::map<std::string, int64_t> dims = o.compiler.options().dims;
        dims[result.bucket->symbol] = result.bucket->actual;
        p.reference = compiler::importOnnx(o.model, {}, dims);
    }
    if (p.reference) {
        const std::vector<Tensor> golden = compiler::interpretGraph(*p.reference, inputs);
        report.check = compareOutputs(result.outputBindings(), result.outputs, golden, o.rtol, o.atol);
        reports::CheckResult& check = *report.check;
        check.precision = p.artifact.manifest.precision;
        if (check.precision == "fp32") {
            std::printf("check against the reference interpreter: %s (max abs error %g, max rel error %g)\n",
                        check.passed ? "passed" : "MISMATCH", check.maxAbsError, check.maxRelError);
            if (!check.passed) failures.push_back("outputs differ from the reference interpreter");
        } else {
            checkAgainstProgram(o, p, inputs, result, check, failures);
        }
        if (o.checkPerOp) checkPerOp(o, p, inputs, result, check);
    }
    if (!expected.empty()) {
        const reports::CheckResult match = compareOutputs(result.outputBindings(), result.outputs, expected, o.rtol, o.atol);
        std::printf("check against %s: %s (max abs error %g)\n", o.expected.c_str(),
                    match.passed ? "passed" : "MISMATCH", match.maxAbsError);
        if (!match.passed) failures.push_back("outputs differ from " + o.expected);
    }
    return failures;
}

/// Writes --outputs and --report, all or nothing.
void writeResults(const RunOptions& o, const ArchConfig& config, const sim::CoSimResult& result, const reports::Report& report) {
    const auto start = std::chrono::steady_clock::now();
    OutputFiles files;
    if (!o.outputs.empty()) writeOutputs(files, o.outputs, result.outputBindings(), result.outputs);
    if (!o.report.empty()) stageReportData(files, o.report, report, sim::runRecord(config, result));
    files.commit();
    if (!o.outputs.empty()) {
        std::string names;
        for (const TensorBinding& output : result.outputBindings()) names += (names.empty() ? "" : ", ") + output.name + ".npy";
        std::printf("  outputs: %s/ (%s)\n", o.outputs.c_str(), names.c_str());
    }
    if (!o.report.empty()) {
        const double dataSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        // An earlier run's page must not stand beside this run's report if the plots fail.
        std::filesystem::remove(std::filesystem::path(o.report) / "report.html");
        const double plotSeconds = writeReadableReport(o.report, report);
        std::printf("  report: %s/report.json, report.md, report.html, trace.json, timeline.json, plots/*.png "
                    "(files written in %.2f s, plots drawn in %.1f s)\n",
                    o.report.c_str(), dataSeconds, plotSeconds);
    }
}

void run(const RunOptions& o) {
    checkOptions(o);
    // Where the results go is checked before any work: a run must not end unable to write them.
    if (!o.outputs.empty()) checkOutputDirectory("--outputs", o.outputs);
    if (!o.report.empty()) checkOutputDirectory("--report", o.report);
    if (!o.vcd.empty()) checkOutputFile("--vcd", o.vcd);
    Prepared p = prepare(o);
    sim::checkSimulationMemory(p.artifact, o.compiler.maxMemoryBytes());
    const std::map<std::string, Tensor> inputs = runInputs(o, p.artifact.manifest);
    const std::vector<Tensor> expected = expectedOutputs(o, p.artifact.manifest, inputs);
    const sim::CoSimResult result = simulate(o, p, inputs);
    reports::Report report = sim::buildRunReport(p.config, result, o.timingOnly);
    const std::vector<std::string> failures = checkOutputs(o, p, inputs, expected, result, report);
    printSummary(report);
    writeResults(o, p.config, result, report);
    if (!failures.empty()) throw RunError(failures.front());
}

}  // namespace

void addRunCommand(CLI::App& app) {
    CLI::App* command = app.add_subcommand("run", "simulate an artifact (or compile and simulate a model)");
    auto o = std::make_shared<RunOptions>();
    command->add_option("target", o->target, "artifact (.npuart) or ONNX model")->required();
    command->add_option("--inputs", o->inputs, "directory of <name>.npy / input_<i>.pb, or 'random'")
        ->capture_default_str();
    command->add_option("--seed", o->seed, "seed for random inputs")->capture_default_str();
    command->add_option("--outputs", o->outputs, "directory to write <output name>.npy into");
    command->add_option("--report", o->report, "directory to write report.json, report.md, report.html, trace.json, timeline.json, plots/");
    command->add_flag("--check", o->check, "compare outputs with the graph-IR reference interpreter");
    command->add_flag("--check-per-op", o->checkPerOp,
                      "with --check: compare every op's result in the compiled program with the reference's, "
                      "and name the first that drifts past the tolerance");
    command->add_flag("--timing-only", o->timingOnly,
                      "skip arithmetic and data movement; every timing decision and cycle is unchanged");
    command->add_option("--model", o->model, "the ONNX model an artifact came from (for --check)");
    command->add_option("--repeat", o->repeat,
                        "after the cold run, one warm and N steady-state runs (report.json timing)")
        ->check(CLI::Range(0, 1000));
    command->add_flag("--force-arch", o->forceArch,
                      "run an artifact on the --arch/--set config even if it was compiled for another one");
    command->add_option("--expected", o->expected, "directory of reference outputs to compare with");
    command->add_option("--rtl", o->rtl, "run these units as RTL (Verilator): tensor, vector")->delimiter(',');
    command->add_option("--vcd", o->vcd,
                        "write the RTL blocks' waveforms to this VCD file (FILE.tensor.vcd and FILE.vector.vcd for both)");
    command->add_option("--inject", o->inject,
                        "inject a fault: KIND@N fires at the N-th event of its kind (dma_error: DMA commands, "
                        "unit_hang: tensor commands, lost_irq: interrupts, dram_flip and sram_flip: DMA loads from DRAM)");
    command->add_option("--watchdog", o->watchdog, "each job's cycle budget (the firmware's watchdog)")
        ->capture_default_str()
        ->check(CLI::Range(uint64_t{1000}, uint64_t{1} << 40));
    command->add_option("--retries", o->retries, "run a job the NPU fails again up to N times (default: 1 with --inject, else 0)")
        ->check(CLI::Range(0, 100));
    command->add_option("--rtol", o->rtol, "relative tolerance for float outputs")->capture_default_str();
    command->add_option("--atol", o->atol, "absolute tolerance for float outputs")->capture_default_str();
    o->arch.addTo(*command);
    o->compiler.addTo(*command);
    command->callback([o, command] {
        o->toleranceGiven = command->count("--rtol") + command->count("--atol") > 0;
        o->check = o->check || o->checkPerOp;
        run(*o);
    });
}

}  // namespace npusim::cli
