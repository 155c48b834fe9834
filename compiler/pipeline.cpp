// The pipeline and the artifact it produces.
#include "compiler/pipeline.h"

#include <algorithm>
#include <map>
#include <set>
#include <span>

#include "arch/byte_text.h"
#include "arch/checksum.h"
#include "arch/error.h"
#include "arch/isa_loops.h"
#include "compiler/cost/cost_model.h"
#include "compiler/cost/cost_params.h"
#include "compiler/cpu/llvm_emitter.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/graph/data_dependent.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/printer.h"
#include "compiler/graph/verifier.h"
#include "compiler/memory/memory_planning.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/lower_precision.h"
#include "compiler/target/codegen.h"
#include "compiler/target/loop_packing.h"
#include "compiler/tile/footprint.h"
#include "compiler/tile/unit_bounds.h"
#include "compiler/tiling/tile_pass.h"
#include "compiler/tiling/tiling.h"

namespace npusim::compiler {
namespace {

/// The graph pass int8 quantisation runs before.
constexpr std::string_view kQuantizeBefore = "convolution-to-gemm";

/// The largest weighted term of an estimate, by name ("" when it is all zero).
std::string largestTerm(const CostEstimate& e, const CostParams& params) {
    std::string name;
    double largest = 0;
    for (size_t f = 0; f < kCostFeatures; ++f) {
        const double term = params.weights[f] * e.features[f];
        if (term > largest) {
            largest = term;
            name = std::string(costFeatureName(static_cast<CostFeature>(f)));
        }
    }
    return name;
}

OpRecord opRecord(const Graph& graph, const MemoryPlan& plan, const CostModel& model, const Node& node, uint32_t opId,
                  uint64_t sramInUse, const TileOp& tiles) {
    OpRecord record;
    record.opId = opId;
    record.sramBytes = sramInUse;
    record.name = node.name;
    record.type = std::string(opInfo(node.kind).name);
    if (const auto* host = std::get_if<HostTiles>(&tiles)) record.note = "runs on the host CPU (" + host->reason + ")";
    if (node.kind == OpKind::Reformat) {
        record.note = "layout " + ops::stringAttr(node, "from", "?") + " -> " + ops::stringAttr(node, "to", "?");
    }
    // Compulsory traffic: each DRAM tensor the op's commands read or write, once, as far as they
    // reach it (reachedBytes), values sharing storage (views) at most the storage. An op
    // without kernels (a view, a fused producer) moves nothing; a fused kernel reads its
    // producers' inputs instead of their results; resident intermediates never reach DRAM.
    // Spills are listed in the order the op meets them.
    const ReachedBytes reachedByDirection = reachedBytes(graph, tiles);
    record.bounds = unitBounds(tiles, reachedByDirection, model.config());
    const CostEstimate estimate = model.estimateTileOp(tiles);
    record.estimatedCycles = estimate.totalCycles;
    record.estimateLargest = largestTerm(estimate, model.params());
    record.estimatedEnergyPj = estimate.energyPj;
    const std::map<ValueId, uint64_t> reached = reachedByDirection.either(graph);
    std::set<ValueId> storage, values;
    std::map<ValueId, uint64_t> covered;  ///< by storage: the bytes of it the op reaches
    for (ValueId id : accessedValues(tiles)) {
        const TensorHome& home = plan.tensor(id);
        if (home.resident() || !values.insert(id).second) continue;
        covered[home.storage] += reached.at(id);
        if (!storage.insert(home.storage).second) continue;
        if (home.spilled()) {
            const TensorHome& stored = plan.tensor(home.storage);
            record.spills.push_back({graph.value(home.storage).name, stored.bytes, stored.sramToKeep});
        }
    }
    for (const auto& [id, bytes] : covered) record.minDramBytes += std::min(bytes, plan.tensor(id).bytes);
    if (const auto* gemm = std::get_if<GemmTiles>(&tiles)) {
        const GemmProblem& p = gemm->problem;
        record.dtype = p.operandType;
        record.macs = static_cast<uint64_t>(p.batch * p.m * p.n * p.k);
    } else if (!node.outputs.empty()) {
        record.dtype = graph.value(node.outputs[0]).dtype;
    }
    return record;
}

TensorBinding binding(const Graph& graph, const MemoryPlan& plan, ValueId id) {
    const Value& value = graph.value(id);
    return {value.name, value.dtype, value.shape, plan.tensor(id).offset, value.symbols};
}

std::vector<std::byte> textSection(const std::string& text) {
    const auto bytes = std::as_bytes(std::span(text));
    return {bytes.begin(), bytes.end()};
}

/// Adds to each op's record its commands and the bytes of the descriptors written for them:
/// a loop's header and steps count for the op of the first command of its body.
void countCommands(std::span<const isa::Command> commands, std::span<const isa::Command> descriptors,
                   std::vector<OpRecord>& ops) {
    std::map<uint32_t, OpRecord*> byId;
    for (OpRecord& op : ops) byId[op.opId] = &op;
    const auto record = [&](uint32_t opId) -> OpRecord* {
        const auto it = byId.find(opId);
        return it == byId.end() ? nullptr : it->second;
    };
    for (const isa::Command& command : commands) {
        if (OpRecord* op = record(command.opId)) ++op->commands;
    }
    const auto isLoopPart = [](const isa::Command& d) { return d.opcode == isa::Opcode::Loop || d.opcode == isa::Opcode::Step; };
    for (size_t i = 0; i < descriptors.size();) {
        const size_t end = descriptors[i].opcode == isa::Opcode::Loop ? i + isa::loopExtent(descriptors[i]) : i + 1;
        const auto loop = descriptors.subspan(i, end - i);
        const auto first = std::find_if_not(loop.begin(), loop.end(), isLoopPart);
        const uint32_t loopOp = first == loop.end() ? isa::kNoOp : first->opId;
        for (const isa::Command& d : loop) {
            if (OpRecord* op = record(isLoopPart(d) ? loopOp : d.opId)) op->commandBytes += isa::kCommandBytes;
        }
        i = end;
    }
}

/// The manifest's segments and the sections they read (command streams, the CPU kernels).
void addSegments(Compilation& c, const std::string& modelName, bool loops) {
    // Each stream is replaced by its descriptors as soon as it is packed: the expanded
    // streams are never all in memory at once.
    std::map<uint32_t, const HostTiles*> hostOps;
    for (const TileOp& op : c.tiles.ops) {
        if (const auto* host = std::get_if<HostTiles>(&op)) hostOps[host->opId] = host;
    }
    std::vector<cpu::Kernel> kernels;
    int streams = 0;
    for (CodeSegment& segment : c.segments) {
        SegmentRecord record;
        for (const StreamedWeight& weight : segment.uploads) {
            const TensorHome& home = c.memory.tensor(weight.value);
            record.uploads.push_back({weight.imageOffset, home.offset, home.bytes, weight.firstReader});
        }
        if (!segment.hostOp) {
            record.section = kCommandsSection;
            if (streams > 0) record.section += "." + std::to_string(streams);
            ++streams;
            std::vector<isa::Command> descriptors = loops ? packLoops(segment.commands) : segment.commands;
            countCommands(segment.commands, descriptors, c.artifact.manifest.ops);
            segment.dispatched = segment.commands.size();
            segment.commands = std::move(descriptors);
            c.artifact.sections[record.section] = isa::encodeStream(segment.commands);
        } else {
            const HostTiles& host = *hostOps.at(*segment.hostOp);
            record.cpu = true;
            record.kernel = host.host.kernel.name;
            record.opId = host.opId;
            record.operations = cpu::operationCount(host.host.kernel);
            for (ValueId id : host.host.inputs) {
                TensorBinding input = binding(c.graph, c.memory, id);
                if (const std::optional<uint64_t> image = c.memory.weightImageOffset(id)) {
                    input.imageOffset = static_cast<int64_t>(*image);
                }
                record.inputs.push_back(std::move(input));
            }
            for (ValueId id : host.host.outputs) record.outputs.push_back(binding(c.graph, c.memory, id));
            kernels.push_back(host.host.kernel);
        }
        c.artifact.manifest.segments.push_back(std::move(record));
    }
    if (!kernels.empty()) c.artifact.sections[kCpuSection] = textSection(cpu::emitLlvmModule(kernels, modelName));
}

}  // namespace

Compilation compileModel(const std::filesystem::path& model, const ArchConfig& config,
                         const CompileOptions& options) {
    return compileGraph(importOnnx(model, options.bindings, options.dims), config, model.stem().string(),
                        fileSha256(model.string()), options);
}

Compilation compileGraph(Graph source, const ArchConfig& config, const std::string& modelName,
                         const std::string& modelHash, const CompileOptions& options) {
    Compilation c;
    auto dump = [&](std::string_view stage, IrLevel level) {
        if (options.dump) options.dump(stage, level, printIr(c, level));
    };
    c.source = std::move(source);
    c.graph = c.source;
    dump("import", IrLevel::Graph);
    const bool int8 = options.precision.precision == Precision::Int8;
    for (const GraphPass& pass : graphPasses()) {
        // int8 quantises convolutions, once their batch norms are folded into them, before
        // they become GEMMs: QLinearConv lowers with its zero point padding the windows.
        if (int8 && pass.name == kQuantizeBefore) {
            const std::vector<CalibrationSet> calibration =
                options.calibrationInputs ? options.calibrationInputs(c.source) : std::vector<CalibrationSet>{};
            quantizeInt8(c.graph, options.precision, calibration);
            const QuantizationOptions& q = options.precision.quantization;
            c.artifact.manifest.calibration = std::string(calibrationMethodName(q.method)) + " " +
                                              std::string(activationSchemeName(q.scheme)) + ", " +
                                              std::to_string(calibration.size()) + " samples";
            dump("quantize-int8", IrLevel::Graph);
        }
        pass.run(c.graph);
        dump(pass.name, IrLevel::Graph);
    }
    if (options.precision.precision != Precision::Fp32 && !int8) {
        lowerPrecision(c.graph, options.precision);
        dump("lower-precision", IrLevel::Graph);
    }
    verifyGraph(c.graph);
    markDataDependentOutputs(c.graph);  // the passes kept the padding of data-dependent sizes apart

    if (!options.costParams.archHash.empty() && options.costParams.archHash != archConfigHash(config)) {
        throw InputError("the cost parameters were fitted for another architecture (config " +
                         options.costParams.archHash + ", this one is " + archConfigHash(config) +
                         "); calibrate for it with npusim calibrate");
    }
    const CostModel costModel(config, options.costParams);
    c.tiles = lowerToTiles(c.graph, config, costModel, options.fixed);
    dump("lower-to-tiles", IrLevel::Tile);
    const TileContext context{c.graph, config, costModel, options.fusion};
    for (const TilePass& pass : tilePasses()) {
        if (!pass.applies(c.tiles, context)) continue;
        pass.run(c.tiles, context);
        dump(pass.name, IrLevel::Tile);
    }
    if (options.maxMemoryBytes != 0) checkCompileMemory(c.tiles, c.graph, options.maxMemoryBytes);
    c.mapping = mapProgram(c.graph, c.tiles);
    c.memory = planMemory(c.graph, c.tiles, config);
    dump("plan-memory", IrLevel::Memory);
    c.segments = generateSegments(c.tiles, c.memory, config);

    ArtifactManifest& m = c.artifact.manifest;
    m.compilerVersion = NPUSIM_VERSION;
    m.modelName = modelName;
    m.modelHash = modelHash;
    m.archName = config.name;
    m.archHash = archConfigHash(config);
    m.archConfig = archConfigFileToJson(toArchConfigFile(config));
    m.precision = precisionName(options.precision.precision);
    for (const auto& [op, precision] : options.precision.overrides) m.precisionOverrides[op] = precisionName(precision);
    m.objective = objectiveName(options.costParams.objective);
    for (ValueId id : c.graph.inputs) m.inputs.push_back(binding(c.graph, c.memory, id));
    for (ValueId id : c.graph.outputs) m.outputs.push_back(binding(c.graph, c.memory, id));
    for (const Node& node : c.graph.nodes) {
        if (const std::optional<DataDependentSize> size = dataDependentSize(c.graph, node)) {
            m.sizes.push_back(binding(c.graph, c.memory, node.outputs[size->sizeOutput]));
        }
    }
    m.dramBytes = c.memory.dramBytes;
    m.weightsOffset = c.memory.weightsOffset;
    m.residentWeightBytes = c.memory.residentWeightBytes;
    std::vector<uint32_t> opIds;
    for (const TileOp& op : c.tiles.ops) opIds.push_back(tileOpId(op));
    const std::vector<uint64_t> sramInUse = c.memory.sramInUse(opIds);
    for (size_t position = 0; position < c.tiles.ops.size(); ++position) {
        m.ops.push_back(opRecord(c.graph, c.memory, costModel, c.graph.nodes.at(opIds[position]), opIds[position],
                                 sramInUse[position], c.tiles.ops[position]));
    }
    addSegments(c, modelName, options.loops);
    dump("generate-commands", IrLevel::Isa);
    c.artifact.sections[kWeightsSection] = c.memory.weights;
    c.artifact.sections["ir.graph"] = textSection(printGraph(c.graph));
    c.artifact.sections["ir.tile"] = textSection(printTileProgram(c.tiles, c.graph));
    c.artifact.sections["ir.memory"] = textSection(printMemoryPlan(c.memory, c.graph));
    return c;
}

void checkCompileMemory(const TileProgram& tiles, const Graph& graph, uint64_t limit) {
    constexpr uint64_t kCopiesOfConstants = 4;  // the source and optimised graphs, the plan's image, the artifact
    uint64_t bytes = 0;
    for (const Value& value : graph.values) {
        if (value.constant) bytes += kCopiesOfConstants * value.constant->bytes.size();
    }
    uint64_t commands = 0;
    for (const TileOp& op : tiles.ops) {
        uint64_t opCommands = 0;
        if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
            opCommands = gemm->schedule.estimate.commands;
        } else if (const auto* vector = std::get_if<VectorTiles>(&op)) {
            for (const VectorKernel& kernel : vector->kernels) opCommands += kernel.schedule.estimate.commands;
        }
        commands += opCommands;
        bytes += opCommands * kCompileBytesPerCommand;
        if (bytes > limit) {
            opError(graph.nodes.at(tileOpId(op)),
                    "compiling the model up to this op needs about " + bytesText(bytes) + " of memory (" + std::to_string(commands) +
                        " commands, " + std::to_string(opCommands) + " of them this op's), more than --max-memory " + bytesText(limit));
        }
    }
}

std::string runStages(Graph graph, const ArchConfig& config, std::span<const std::string> stages,
                      const PrecisionOptions& precision) {
    Compilation c;
    c.graph = std::move(graph);
    const CostModel costModel(config, {});
    const TileContext context{c.graph, config, costModel, true};
    IrLevel level = IrLevel::Graph;
    const auto toTiles = [&] {
        if (level != IrLevel::Graph) return;
        verifyGraph(c.graph);
        markDataDependentOutputs(c.graph);
        c.tiles = lowerToTiles(c.graph, config, costModel, {});
        level = IrLevel::Tile;
    };
    const auto graphStages = graphPasses();
    const auto tileStages = tilePasses();
    for (const std::string& name : stages) {
        const auto graphPass = std::find_if(graphStages.begin(), graphStages.end(), [&](const GraphPass& p) { return p.name == name; });
        const auto tilePass = std::find_if(tileStages.begin(), tileStages.end(), [&](const TilePass& p) { return p.name == name; });
        const bool memory = name == "plan-memory", lowering = name == "lower-precision";
        if (graphPass == graphStages.end() && tilePass == tileStages.end() && !memory && !lowering) {
            std::string known;
            for (const GraphPass& p : graphStages) known.append(known.empty() ? "" : ", ").append(p.name);
            for (const TilePass& p : tileStages) known.append(", ").append(p.name);
            throw InputError("unknown pass '" + name + "' (passes: " + known + ", lower-precision, plan-memory)");
        }
        const bool onGraph = graphPass != graphStages.end() || lowering;
        const IrLevel needed = onGraph ? IrLevel::Graph : memory ? IrLevel::Memory : IrLevel::Tile;
        if (needed < level) throw InputError("pass '" + name + "' works on an IR level the passes before it have left");
        if (lowering) {
            lowerPrecision(c.graph, precision);
            continue;
        }
        if (graphPass != graphStages.end()) {
            graphPass->run(c.graph);
            continue;
        }
        toTiles();
        if (memory) {
            c.memory = planMemory(c.graph, c.tiles, config);
            level = IrLevel::Memory;
        } else {
            tilePass->run(c.tiles, context);
        }
    }
    return printIr(c, level);
}

std::string printIr(const Compilation& c, IrLevel level) {
    switch (level) {
        case IrLevel::Graph: return printGraph(c.graph);
        case IrLevel::Tile: return printTileProgram(c.tiles, c.graph);
        case IrLevel::Memory: return printMemoryPlan(c.memory, c.graph);
        case IrLevel::Isa: {
            std::string text;
            for (const CodeSegment& segment : c.segments) {  // CPU segments have no commands
                for (const isa::Command& command : isa::expandLoops(segment.commands)) text += isa::disassemble(command) + "\n";
            }
            return text;
        }
    }
    return {};
}

size_t commandCount(const Compilation& c) {
    size_t count = 0;
    for (const CodeSegment& segment : c.segments) count += segment.dispatched;
    return count;
}

}  // namespace npusim::compiler
