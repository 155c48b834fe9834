// Simulation speed benchmark. gemm|copy: host time of the co-simulation phase alone
// (compilation and input generation excluded), for a compute-bound GEMM or a bandwidth-bound
// DRAM copy. network ARTIFACT: a compiled model from load to report, each phase timed on its
// own: reading the artifact, elaborating the system, the run (weights, commands, inference)
// and writing report.json and trace.json (to memory). Full or timing-only mode. One
// measurement per process (SystemC elaborates once); run_benchmarks.sh runs the variants side
// by side and prints the ratios.
//   sim_speed gemm|copy [--timing-only] [--rtl] [--size N] [--arch PRESET]
//   sim_speed network ARTIFACT [--timing-only] [--inputs DIR]   (inputs: random unless given)
// --rtl runs the tensor unit's RTL core (the Verilated systolic array) instead of its model core.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <systemc>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "cli/tensor_files.h"
#include "compiler/graph/op_table.h"
#include "compiler/pipeline.h"
#include "compiler/target/sync_planner.h"
#include "reports/report.h"
#include "sim/cosim.h"
#include "sim/run_report.h"
#include "tests/support/artifact_support.h"

namespace {

using namespace npusim;

struct Options {
    std::string workload = "gemm", arch = "edge", artifact, inputs;
    bool timingOnly = false, rtl = false;
    int64_t size = 0;
};

/// An int8 GEMM [n x n] x [n x n] with constant weights, through the whole compiler.
Artifact gemmArtifact(const ArchConfig& config, int64_t n, std::map<std::string, Tensor>& inputs) {
    compiler::Graph graph;
    graph.name = "gemm";
    std::mt19937 rng(1);
    Tensor weights = Tensor::zeros(DType::Int8, {n, n});
    for (int8_t& v : weights.as<int8_t>()) v = static_cast<int8_t>(rng() % 256 - 128);
    const compiler::ValueId a = graph.addValue({"a", DType::Int8, {n, n}, std::nullopt, -1, {}});
    const compiler::ValueId w = graph.addValue({"w", DType::Int8, {n, n}, weights, -1, {}});
    const compiler::ValueId y = graph.addValue({"y", DType::Int32, {n, n}, std::nullopt, 0, {}});
    graph.inputs = {a};
    graph.outputs = {y};
    graph.nodes.push_back({"gemm", compiler::OpKind::MatMulInteger, {a, w}, {y}, {}});
    Tensor input = Tensor::zeros(DType::Int8, {n, n});
    for (int8_t& v : input.as<int8_t>()) v = static_cast<int8_t>(rng() % 256 - 128);
    inputs["a"] = std::move(input);
    return compiler::compileGraph(std::move(graph), config, "gemm", "bench").artifact;
}

/// Copies `bytes` of DRAM through SRAM in 64 KiB blocks, double-buffered: every byte is one
/// DRAM read and one DRAM write, nothing else.
Artifact copyArtifact(const ArchConfig& config, uint64_t bytes) {
    constexpr uint64_t kBlock = 64 * 1024;
    compiler::SyncPlanner planner(config.semaphores, [](uint32_t) { return std::optional<compiler::ResourceExtent>{}; });
    for (uint64_t offset = 0, block = 0; offset < bytes; offset += kBlock, ++block) {
        const uint32_t slot = static_cast<uint32_t>(block % 2);
        for (bool load : {true, false}) {
            isa::Command c;
            c.opcode = load ? isa::Opcode::DmaLoad : isa::Opcode::DmaStore;
            c.kind = load ? isa::CommandKind::Load : isa::CommandKind::Store;
            c.set(isa::Field::DramAddr, load ? offset : bytes + offset).set(isa::Field::OnchipAddr, slot * kBlock);
            c.set(isa::Field::Rows, 1).set(isa::Field::RowBytes, kBlock).set(isa::Field::DramStride, kBlock);
            c.set(isa::Field::OnchipStride, kBlock);
            const compiler::Access access[] = {{slot, load}};
            planner.add(c, access);
        }
    }
    Artifact artifact;
    artifact.manifest.dramBytes = 2 * bytes;
    artifact.sections[kCommandsSection] = isa::encodeStream(planner.finish());
    artifact.manifest.segments = {testing::npuSegment(kCommandsSection)};
    return artifact;
}

Options parse(int argc, char* argv[]) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--timing-only") {
            o.timingOnly = true;
        } else if (arg == "--rtl") {
            o.rtl = true;
        } else if (arg == "--size" && i + 1 < argc) {
            o.size = std::stoll(argv[++i]);
        } else if (arg == "--arch" && i + 1 < argc) {
            o.arch = argv[++i];
        } else if (arg == "--inputs" && i + 1 < argc) {
            o.inputs = argv[++i];
        } else if (arg == "network" && i + 1 < argc) {
            o.workload = arg;
            o.artifact = argv[++i];
        } else {
            o.workload = arg;
        }
    }
    return o;
}

/// This process's peak resident memory in MiB (VmHWM: its own, not a parent's before exec).
double peakRssMib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.starts_with("VmHWM:")) return std::stod(line.substr(6)) / 1024;
    }
    return 0;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// A whole network from its artifact file to its report, phase by phase.
int runNetwork(const Options& o) {
    auto clock = std::chrono::steady_clock::now();
    const Artifact artifact = readArtifact(o.artifact, o.timingOnly ? ArtifactRead::TimingOnly : ArtifactRead::Whole);
    const ArchConfig config = validateArchConfig(parseArchConfigFile(artifact.manifest.archConfig, o.artifact));
    const double load = secondsSince(clock);
    const std::map<std::string, Tensor> inputs = o.inputs.empty() ? cli::randomInputs(artifact.manifest.inputs, 1)
                                                                   : cli::readInputs(o.inputs, artifact.manifest.inputs);
    sim::CoSimOptions options;
    options.timingOnly = o.timingOnly;
    clock = std::chrono::steady_clock::now();
    const sim::CoSimResult result = sim::runCoSimulation(config, artifact, inputs, options);
    const double simulate = secondsSince(clock);
    clock = std::chrono::steady_clock::now();
    const reports::Report report = sim::buildRunReport(config, result, o.timingOnly);
    // Written to files, as `npusim run --report` writes them, then removed.
    const std::filesystem::path json = std::filesystem::temp_directory_path() / ("sim_speed_report_" + std::to_string(getpid()) + ".json");
    const std::filesystem::path trace = std::filesystem::temp_directory_path() / ("sim_speed_trace_" + std::to_string(getpid()) + ".json");
    std::ofstream(json) << reports::reportToJson(report);
    {
        std::ofstream out(trace);
        reports::writeChromeTrace(out, sim::runRecord(config, result));
    }
    const double reportSeconds = secondsSince(clock);
    const uintmax_t jsonBytes = std::filesystem::file_size(json), traceBytes = std::filesystem::file_size(trace);
    std::filesystem::remove(json);
    std::filesystem::remove(trace);
    const uint64_t commands = commandCount(artifact.manifest);
    const double run = result.timing.cold.hostSeconds;
    std::printf("workload=network model=%s mode=%s arch=%s cycles=%llu commands=%llu trace_events=%zu dram_transactions=%llu "
                "load_seconds=%.4f elaborate_seconds=%.4f run_seconds=%.4f compute_seconds=%.4f report_seconds=%.4f total_seconds=%.4f "
                "report_json_bytes=%zu trace_json_bytes=%zu mcycles_per_second=%.2f mtransactions_per_second=%.3f peak_rss_mib=%.1f\n",
                artifact.manifest.modelName.c_str(), o.timingOnly ? "timing-only" : "full", config.name.c_str(),
                static_cast<unsigned long long>(result.job.cycles), static_cast<unsigned long long>(commands),
                result.trace.events().size(), static_cast<unsigned long long>(result.dram.transactions), load, simulate - run, run, result.computeSeconds, reportSeconds,
                load + simulate + reportSeconds, static_cast<size_t>(jsonBytes), static_cast<size_t>(traceBytes), result.job.cycles / run / 1e6,
                result.dram.transactions / run / 1e6, peakRssMib());
    return 0;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
    const Options o = parse(argc, argv);
    if (o.workload == "network") return runNetwork(o);
    const ArchConfig config = loadArchConfig(o.arch, {});
    std::map<std::string, Tensor> inputs;
    Artifact artifact;
    uint64_t transactions = 0;
    if (o.workload == "gemm") {
        artifact = gemmArtifact(config, o.size ? o.size : 1024, inputs);
    } else if (o.workload == "copy") {
        const uint64_t bytes = static_cast<uint64_t>(o.size ? o.size : 64) << 20;
        if (2 * bytes > config.dram.sizeBytes) {  // the source and the copy
            std::fprintf(stderr, "sim_speed: a copy of %llu MiB needs twice that of DRAM; %s has %llu MiB\n",
                         static_cast<unsigned long long>(bytes >> 20), config.name.c_str(),
                         static_cast<unsigned long long>(config.dram.sizeBytes >> 20));
            return 2;
        }
        artifact = copyArtifact(config, bytes);
        transactions = 2 * bytes / config.dma.burstBytes;  // one read and one write burst per burst of data
    } else {
        std::fprintf(stderr, "sim_speed: unknown workload '%s' (gemm, copy or network ARTIFACT)\n", o.workload.c_str());
        return 2;
    }
    sim::CoSimOptions options;
    options.timingOnly = o.timingOnly;
    options.trace = false;
    options.rtlTensor = o.rtl;
    const auto start = std::chrono::steady_clock::now();
    const sim::CoSimResult result = sim::runCoSimulation(config, artifact, inputs, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("workload=%s mode=%s core=%s arch=%s cycles=%llu host_seconds=%.4f mcycles_per_second=%.2f",
                o.workload.c_str(), o.timingOnly ? "timing-only" : "full", o.rtl ? "rtl" : "model", o.arch.c_str(),
                static_cast<unsigned long long>(result.job.cycles), seconds, result.job.cycles / seconds / 1e6);
    if (transactions) std::printf(" mtransactions_per_second=%.3f", transactions / seconds / 1e6);
    std::printf("\n");
    return 0;
}
