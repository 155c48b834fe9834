// Simulation speed benchmark: host time of the co-simulation phase alone (compilation and
// input generation excluded), for a compute-bound GEMM or a bandwidth-bound DRAM copy, in full
// or timing-only mode. One measurement per process (SystemC elaborates once); run_benchmarks.sh
// runs the variants side by side and prints the ratios.
//   sim_speed gemm|copy [--timing-only] [--rtl] [--size N] [--arch PRESET]
// --rtl runs the tensor unit's RTL core (the Verilated systolic array) instead of its model core.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include <systemc>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "compiler/graph/op_table.h"
#include "compiler/pipeline.h"
#include "compiler/target/sync_planner.h"
#include "sim/cosim.h"
#include "tests/support/artifact_support.h"

namespace {

using namespace npusim;

struct Options {
    std::string workload = "gemm", arch = "edge";
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
        } else {
            o.workload = arg;
        }
    }
    return o;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
    const Options o = parse(argc, argv);
    const ArchConfig config = loadArchConfig(o.arch, {});
    std::map<std::string, Tensor> inputs;
    Artifact artifact;
    uint64_t transactions = 0;
    if (o.workload == "gemm") {
        artifact = gemmArtifact(config, o.size ? o.size : 1024, inputs);
    } else if (o.workload == "copy") {
        const uint64_t bytes = static_cast<uint64_t>(o.size ? o.size : 64) << 20;
        artifact = copyArtifact(config, bytes);
        transactions = 2 * bytes / config.dma.burstBytes;  // one read and one write burst per burst of data
    } else {
        std::fprintf(stderr, "sim_speed: unknown workload '%s' (gemm or copy)\n", o.workload.c_str());
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
