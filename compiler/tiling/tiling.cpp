// lowerToTiles: one tile op per graph op, in graph order.
#include "compiler/tiling/tiling.h"

#include <algorithm>
#include <variant>

#include "compiler/graph/op_table.h"
#include "compiler/tile/footprint.h"
#include "compiler/tiling/mapping.h"
#include "compiler/tiling/vector_lowering.h"

namespace npusim::compiler {
namespace {

std::string kib(uint64_t bytes) { return std::to_string(bytes / 1024) + " KiB"; }

TileOp lowerGemm(const Graph& graph, const Node& node, uint32_t opId, const ArchConfig& config,
                 const CostModel& model, const FixedSchedules& fixed) {
    GemmTiles tiles{gemmProblemFor(graph, node, opId, config), {}};
    std::optional<GemmSchedule> schedule = fixed.gemm;
    if (schedule) {
        schedule->estimate = model.estimateGemm(tiles.problem, *schedule);
    } else {
        schedule = chooseGemmSchedule(tiles.problem, config, model);
    }
    if (!schedule) {
        opError(node, "no tiling of this GEMM fits " + kib(config.sram.sizeBytes) + " SRAM and " +
                          kib(config.accumulator.sizeBytes) + " accumulator memory");
    }
    tiles.schedule = *schedule;
    return tiles;
}

/// Schedules each problem (cutting rows too long for the SRAM where the math allows); the
/// kernels, or the first problem no blocking fits.
std::variant<std::vector<VectorKernel>, std::string> scheduleKernels(std::vector<VectorProblem> problems,
                                                                      const ArchConfig& config, const CostModel& model,
                                                                      const FixedSchedules& fixed) {
    std::vector<VectorKernel> kernels;
    for (VectorProblem& problem : problems) {
        std::optional<VectorSchedule> schedule = fixed.vector;
        if (schedule) {
            schedule->estimate = model.estimateVector(problem, *schedule);
        } else {
            schedule = chooseVectorSchedule(problem, config, model);
        }
        for (int64_t limit = problem.cols() / 2; !schedule && limit >= 1; limit /= 2) {
            std::optional<VectorProblem> split = splitColumns(problem, limit);
            if (!split) break;
            schedule = chooseVectorSchedule(*split, config, model);
            if (schedule) problem = std::move(*split);
        }
        if (!schedule) return "no blocking of its " + problem.name + " kernel fits " + kib(config.sram.sizeBytes) + " SRAM";
        kernels.push_back({std::move(problem), *schedule});
    }
    return kernels;
}

/// The kernels' estimates, one after the other.
CostEstimate summed(const std::vector<VectorKernel>& kernels) {
    CostEstimate sum;
    for (const VectorKernel& kernel : kernels) sum += kernel.schedule.estimate;
    return sum;
}

TileOp lowerVector(const Graph& graph, const Node& node, uint32_t opId, const ArchConfig& config,
                   const CostModel& model, const FixedSchedules& fixed) {
    std::vector<VectorProblem> problems, windows;
    try {
        problems = vectorProblemsFor(graph, node, opId);
        windows = windowProblemsFor(graph, node, opId, config.sram);
    } catch (const VectorUnsupported& e) {
        opError(node, e.what());
    }
    if (problems.empty()) opError(node, "the NPU has no lowering for this op");
    auto kernels = scheduleKernels(std::move(problems), config, model, fixed);
    // A window kernel over padded planes replaces the box kernels where the cost model expects it
    // better by the objective.
    for (VectorProblem& window : windows) {
        auto windowed = scheduleKernels({std::move(window)}, config, model, fixed);
        const auto* chosen = std::get_if<std::vector<VectorKernel>>(&windowed);
        const auto* best = std::get_if<std::vector<VectorKernel>>(&kernels);
        if (chosen && (!best || model.score(summed(*chosen)) < model.score(summed(*best)))) kernels = std::move(windowed);
    }
    if (const auto* error = std::get_if<std::string>(&kernels)) opError(node, *error);
    return VectorTiles{opId, std::move(std::get<std::vector<VectorKernel>>(kernels)), std::nullopt};
}

/// The op as a CPU segment, when the NPU cannot run it (`reason`) and a CPU kernel exists.
std::optional<TileOp> lowerToHost(const Graph& graph, const Node& node, uint32_t opId, const ArchConfig& config,
                                  const std::string& reason) {
    std::optional<cpu::HostKernel> kernel = cpu::hostKernelFor(graph, node, opId);
    if (!kernel) return std::nullopt;
    HostTiles host{opId, std::move(*kernel), reason, {}};
    // The host reads weights from its own copy; other inputs and the outputs cross device memory.
    uint64_t copied = 0;
    for (const auto* values : {&host.host.inputs, &host.host.outputs}) {
        for (ValueId id : *values) {
            if (!graph.value(id).constant) copied += valueBytes(graph.value(id));
        }
    }
    host.estimate.overheadCycles = static_cast<double>(cpu::operationCount(host.host.kernel)) / config.host.cpuOpsPerCycle;
    host.estimate.dmaCycles = static_cast<double>(copied) / config.host.copyBytesPerCycle;
    host.estimate.totalCycles = host.estimate.overheadCycles + host.estimate.dmaCycles;
    return host;
}

/// The value whose storage a reshape's output can share, nullopt when the reshape must copy:
/// the storage of its input, unless the output is a graph output and that storage is a graph
/// input, a weight or another graph output (each of those keeps storage of its own).
std::optional<ValueId> viewStorage(const Graph& graph, const TileProgram& program, const Node& node) {
    switch (node.kind) {
        case OpKind::Reshape:
        case OpKind::Flatten:
        case OpKind::Squeeze:
        case OpKind::Unsqueeze:
        case OpKind::Identity: break;
        default: return std::nullopt;
    }
    const auto isOutput = [&](ValueId id) {
        return std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end();
    };
    const auto view = program.views.find(node.inputs[0]);
    const ValueId storage = view == program.views.end() ? node.inputs[0] : view->second;
    if (isOutput(node.outputs[0]) && (graph.value(storage).producer < 0 || isOutput(storage))) return std::nullopt;
    return storage;
}

}  // namespace

std::vector<VectorProblem> vectorProblemsFor(const Graph& graph, const Node& node, uint32_t opId) {
    for (auto family : {elementwiseProblemsFor, rowwiseProblemsFor, depthwiseProblemsFor, movementProblemsFor,
                        quantizeProblemsFor, resizeProblemsFor}) {
        std::vector<VectorProblem> problems = family(graph, node, opId);
        if (!problems.empty()) return problems;
    }
    return {};
}

TileProgram lowerToTiles(const Graph& graph, const ArchConfig& config, const CostModel& model,
                         const FixedSchedules& fixed) {
    TileProgram program;
    // Every op is tried: the mapping report names each one the NPU cannot run.
    std::vector<OpMapping> mapping;
    std::string firstError;
    size_t unsupported = 0;
    for (size_t index = 0; index < graph.nodes.size(); ++index) {
        const Node& node = graph.nodes[index];
        const auto opId = static_cast<uint32_t>(index);
        const bool empty = std::all_of(node.outputs.begin(), node.outputs.end(),
                                       [&](ValueId id) { return elementCount(graph.value(id).shape) == 0; });
        if (empty) {  // nothing to compute: an op with no kernels
            program.ops.push_back(VectorTiles{opId, {}, std::nullopt});
            mapping.push_back(mapOp(graph, program, program.ops.back()));
            continue;
        }
        if (const std::optional<ValueId> storage = viewStorage(graph, program, node)) {
            program.views[node.outputs[0]] = *storage;
            program.ops.push_back(VectorTiles{opId, {}, std::nullopt});
            mapping.push_back(mapOp(graph, program, program.ops.back()));
            continue;
        }
        try {
            switch (node.kind) {
                case OpKind::MatMul:
                case OpKind::Gemm:
                case OpKind::MatMulInteger:
                    program.ops.push_back(lowerGemm(graph, node, opId, config, model, fixed));
                    break;
                default:
                    program.ops.push_back(lowerVector(graph, node, opId, config, model, fixed));
                    break;
            }
            mapping.push_back(mapOp(graph, program, program.ops.back()));
        } catch (const InputError& e) {
            const std::string prefix = opDiagnostic(node, "");
            const std::string reason = std::string(e.what()).starts_with(prefix) ? std::string(e.what()).substr(prefix.size()) : e.what();
            std::string cpuReason;
            try {
                if (std::optional<TileOp> host = lowerToHost(graph, node, opId, config, reason)) {
                    program.ops.push_back(std::move(*host));
                    mapping.push_back(mapOp(graph, program, program.ops.back()));
                    continue;
                }
            } catch (const InputError& cpu) {
                cpuReason = cpu.what();
            }
            if (unsupported++ == 0) firstError = cpuReason.empty() ? e.what() : cpuReason;
            mapping.push_back({opId, node.name, std::string(opInfo(node.kind).name), "unsupported", reason, ""});
        }
    }
    if (unsupported > 0) {
        if (unsupported > 1) firstError += " (and " + std::to_string(unsupported - 1) + " more ops; see the mapping report)";
        throw MappingError(firstError, std::move(mapping));
    }
    return program;
}

}  // namespace npusim::compiler
