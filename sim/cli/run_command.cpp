// npusim run ARTIFACT|MODEL.onnx [--arch ...] [--inputs DIR|random] [--outputs DIR]
//            [--report DIR] [--check] [--expected DIR]
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "arch/checksum.h"
#include "arch/error.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/graph/interpreter.h"
#include "compiler/pipeline.h"
#include "reports/report.h"
#include "runtime/buckets.h"
#include "sim/cli/commands.h"
#include "sim/cli/report_directory.h"
#include "sim/buckets.h"
#include "sim/cosim.h"
#include "sim/tensor_files.h"

namespace npusim::cli {
namespace {

struct RunOptions {
    std::string target, inputs = "random", outputs, report, expected, model, vcd;
    std::vector<std::string> rtl;  ///< blocks to run as RTL ("tensor")
    std::vector<std::string> inject;  ///< faults, KIND@N
    uint64_t watchdog = 4'000'000'000;
    int retries = -1;  ///< -1: 1 with --inject, else 0
    bool check = false, timingOnly = false, forceArch = false;
    double rtol = 1e-4, atol = 1e-5;
    uint64_t seed = 1;
    int repeat = 0;
    ArchOptions arch;
    CompilerFlags compiler;
};

bool isArtifactFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot read '" + path + "'");
    char magic[6] = {};
    in.read(magic, sizeof magic);
    return std::string(magic, sizeof magic) == "NPUART";
}

/// The artifact to run and the architecture it runs on.
struct Prepared {
    Artifact artifact;
    ArchConfig config;
    std::optional<compiler::Graph> reference;  ///< the model as imported, for --check
};

Prepared prepare(const RunOptions& o) {
    Prepared p;
    if (isArtifactFile(o.target)) {
        p.artifact = readArtifact(o.target);
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
    compiler::Compilation compilation = compiler::compileModel(o.target, p.config, o.compiler.options());
    p.artifact = std::move(compilation.artifact);
    if (o.check) p.reference = std::move(compilation.source);
    return p;
}

void printSummary(const reports::Report& report) {
    std::printf("%s on %s: %llu cycles (%.1f us), roofline efficiency %.1f%%\n", report.model.c_str(),
                report.arch.c_str(), static_cast<unsigned long long>(report.totalCycles),
                static_cast<double>(report.totalCycles) / report.clockHz * 1e6, report.efficiency * 100);
    for (const reports::UnitReport& unit : report.units) {
        std::printf("  %-22s busy %5.1f%%  (%llu commands)\n", unit.name.c_str(), unit.utilization * 100,
                    static_cast<unsigned long long>(unit.commands));
    }
    std::printf("  DRAM: %llu bytes read, %llu written (%.2f GB/s)\n",
                static_cast<unsigned long long>(report.dramBytesRead),
                static_cast<unsigned long long>(report.dramBytesWritten), report.dramGbps);
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

/// The RTL use of a run, for the report: the blocks, and each command that took other cycles
/// on the RTL than in the timing model, named by op.
reports::RtlUse rtlUse(const rtl::RtlLog& log, const ArtifactManifest& manifest) {
    reports::RtlUse use;
    for (const auto& [name, counts] : log.blocks) use.blocks.push_back({name, counts.onRtl, counts.onModel, counts.clockCycles});
    for (const rtl::RtlDifference& d : log.differences) {
        const auto op = std::find_if(manifest.ops.begin(), manifest.ops.end(), [&](const OpRecord& r) { return r.opId == d.opId; });
        use.differences.push_back({d.block, op == manifest.ops.end() ? "" : op->name, d.opId, d.tileId, d.modelCycles,
                                   d.rtlCycles, d.detail});
    }
    return use;
}

void run(const RunOptions& o) {
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
    Prepared p = prepare(o);
    sim::checkSimulationMemory(p.artifact, o.compiler.maxMemoryBytes());
    // A bucketed artifact runs the smallest bucket that holds the inputs, padded to it; its
    // outputs are cut back to the actual size.
    std::optional<reports::BucketUse> bucket;
    std::vector<TensorBinding> inputBindings = p.artifact.manifest.inputs, outputBindings = p.artifact.manifest.outputs;
    if (!p.artifact.manifest.buckets.empty()) {
        const BucketRecord first = p.artifact.manifest.buckets.front();  // a copy: p.artifact is replaced below
        const compiler::CompileOptions given = o.compiler.options();
        const auto dim = given.dims.find(first.symbol);
        const int64_t fallback = dim == given.dims.end() ? first.size : dim->second;
        const int64_t actual = sim::actualSize(
            first, o.inputs == "random" ? std::nullopt : std::optional<std::filesystem::path>(o.inputs), fallback);
        const size_t index = runtime::chooseBucket(p.artifact.manifest, actual);
        bucket = reports::BucketUse{first.symbol, p.artifact.manifest.buckets[index].size, actual};
        p.artifact = bucketArtifact(p.artifact, index);
        inputBindings = runtime::resized(p.artifact.manifest.inputs, first.symbol, actual);
        outputBindings = runtime::resized(p.artifact.manifest.outputs, first.symbol, actual);
        if (o.check) {
            std::map<std::string, int64_t> dims = given.dims;
            dims[first.symbol] = actual;
            p.reference = compiler::importOnnx(o.model, {}, dims);
        }
    }
    const ArtifactManifest& manifest = p.artifact.manifest;
    const std::map<std::string, Tensor> inputs =
        o.inputs == "random" ? sim::randomInputs(inputBindings, o.seed) : sim::readInputs(o.inputs, inputBindings);
    std::map<std::string, Tensor> padded;
    for (const TensorBinding& binding : manifest.inputs) padded[binding.name] = cropOrPad(inputs.at(binding.name), binding.shape);
    std::vector<Tensor> expected;
    if (!o.expected.empty()) expected = sim::readExpectedOutputs(o.expected, outputBindings, manifest.sizes);

    sim::CoSimOptions simulation;
    for (const std::string& fault : o.inject) simulation.faults.push_back(hw::parseFaultSpec(fault));
    simulation.jobRetries = o.retries >= 0 ? o.retries : (o.inject.empty() ? 0 : 1);
    simulation.jobTimeoutCycles = o.watchdog;
    simulation.timingOnly = o.timingOnly;
    simulation.repeat = o.repeat;
    simulation.rtlTensor = std::find(o.rtl.begin(), o.rtl.end(), "tensor") != o.rtl.end();
    simulation.rtlVector = std::find(o.rtl.begin(), o.rtl.end(), "vector") != o.rtl.end();
    // Waveforms are written as the simulation runs: under temporary names, renamed when the
    // run is through, so a failed run leaves no half-written file under a final name.
    std::vector<std::string> vcds;  ///< final names
    if (!o.vcd.empty()) {
        const bool both = simulation.rtlTensor && simulation.rtlVector;
        if (simulation.rtlTensor) simulation.tensorVcd = vcds.emplace_back(sim::vcdPathFor(o.vcd, "tensor", both)) + ".part";
        if (simulation.rtlVector) simulation.vectorVcd = vcds.emplace_back(sim::vcdPathFor(o.vcd, "vector", both)) + ".part";
    }
    sim::CoSimResult result;
    try {
        result = sim::runCoSimulation(p.config, p.artifact, padded, simulation);
    } catch (...) {
        for (const std::string& vcd : vcds) std::filesystem::remove(vcd + ".part");
        throw;
    }
    for (const std::string& vcd : vcds) {
        std::error_code error;
        std::filesystem::rename(vcd + ".part", vcd, error);
        if (error) throw RunError("--vcd: cannot write '" + vcd + "': " + error.message());
    }
    if (bucket) {  // cut back along the bucket's dim
        for (size_t i = 0; i < result.outputs.size(); ++i) {
            Shape shape = result.outputs[i].shape;
            for (size_t d = 0; d < outputBindings[i].symbols.size(); ++d) {
                if (outputBindings[i].symbols[d] == bucket->symbol) shape[d] = outputBindings[i].shape[d];
            }
            result.outputs[i] = cropOrPad(result.outputs[i], shape);
        }
    }
    const reports::RunRecord record{p.config,           manifest,
                                    result.trace,       result.job.startCycle,
                                    result.job.cycles,  result.dram.bytesRead,
                                    result.dram.bytesWritten, result.dram.rowHits,
                                    result.dram.rowMisses};
    reports::Report report = reports::buildReport(record);
    report.timingOnly = o.timingOnly;
    report.timing = result.timing;
    report.bucket = bucket;
    if (result.rtl) report.rtl = rtlUse(*result.rtl, manifest);
    if (result.faults) {
        reports::FaultUse use{{}, result.faults->retriedFailures, result.faults->lostInterrupts,
                              result.faults->correctedErrors};
        for (const auto& f : result.faults->injected) {
            use.injected.push_back({std::string(hw::faultKindName(f.spec.kind)), f.spec.at, f.fired});
        }
        report.faults = std::move(use);
    }

    std::vector<std::string> failures;
    if (p.reference) {
        const std::vector<Tensor> golden = compiler::interpretGraph(*p.reference, inputs);
        report.check = sim::compareOutputs(outputBindings, result.outputs, golden, o.rtol, o.atol);
        std::printf("check against the reference interpreter: %s (max abs error %g, max rel error %g)\n",
                    report.check->passed ? "passed" : "MISMATCH", report.check->maxAbsError,
                    report.check->maxRelError);
        if (!report.check->passed) failures.push_back("outputs differ from the reference interpreter");
    }
    if (!expected.empty()) {
        const reports::CheckResult match = sim::compareOutputs(outputBindings, result.outputs, expected, o.rtol, o.atol);
        std::printf("check against %s: %s (max abs error %g)\n", o.expected.c_str(),
                    match.passed ? "passed" : "MISMATCH", match.maxAbsError);
        if (!match.passed) failures.push_back("outputs differ from " + o.expected);
    }

    printSummary(report);
    sim::OutputFiles files;
    if (!o.outputs.empty()) sim::writeOutputs(files, o.outputs, outputBindings, result.outputs);
    if (!o.report.empty()) stageReportData(files, o.report, report, record);
    files.commit();
    if (!o.report.empty()) {
        // An earlier run's page must not stand beside this run's report if the plots fail.
        std::filesystem::remove(std::filesystem::path(o.report) / "report.html");
        writeReadableReport(o.report, report);
        std::printf("  report: %s/report.json, report.md, report.html, trace.json, plots/*.png\n", o.report.c_str());
    }
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
    command->add_option("--report", o->report, "directory to write report.json, report.md, report.html, trace.json, plots/");
    command->add_flag("--check", o->check, "compare outputs with the graph-IR reference interpreter");
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
    command->callback([o] { run(*o); });
}

}  // namespace npusim::cli
