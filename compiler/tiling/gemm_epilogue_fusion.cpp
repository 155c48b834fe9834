// fuse-gemm-epilogues: an elementwise op that alone reads a GEMM's result, element for element,
// through one-operand steps, runs as the GEMM's epilogue on each result block in the accumulator.
#include "compiler/tiling/fusion.h"

#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include "compiler/tile/footprint.h"
#include "compiler/tiling/tiling.h"

namespace npusim::compiler {
namespace {

/// An epilogue whose vector work is at least this fraction of the GEMM's array work.
constexpr double kHeavyEpilogue = 0.5;

/// A kernel's steps as an epilogue on the GEMM's results, and the type the last leaves them in
/// (the type the GEMM stores).
struct Epilogue {
    std::vector<EpilogueStep> steps;
    DType stored = DType::Fp32;
};

/// How a loaded vector broadcasts over the GEMM's M x N result, which the kernel walks densely:
/// one value per result column (BiasMode::Row: a Linear layer's bias after a MatMul), the
/// kernel's rows being the result's; or, for one batch, one value per result row
/// (BiasMode::Column: a convolution's per-channel bias or requantisation multiplier), the
/// kernel's outermost dim walking the result's rows and the vector with it, the result's long
/// rows possibly cut into several kernel rows. nullopt otherwise.
std::optional<BiasMode> vectorMode(const VectorProblem& p, const VectorLoad& vector, const GemmProblem& gemm,
                                   const Graph& graph) {
    if (vector.view.offset != 0) return std::nullopt;
    const int64_t elements = elementCount(graph.value(vector.view.value).shape);
    const std::vector<int64_t>& strides = vector.view.strides;
    const BufferExtent extent = p.buffers[vector.buffer].extent;
    // A kernel of one row (a GEMM of one result row: a batch-1 classifier, a decode step)
    // loads what it broadcasts over its rows as a block.
    const bool row = extent == BufferExtent::Row || (extent == BufferExtent::Block && p.rows() == 1);
    if (row && p.colDims == 1 && p.cols() == gemm.n && strides.back() == 1 && elements == gemm.n) {
        return BiasMode::Row;
    }
    const bool walksRows = std::all_of(strides.begin() + 1, strides.end(), [](int64_t s) { return s == 0; });
    if (extent == BufferExtent::Column && gemm.batch == 1 && p.rowDims() >= 1 && p.dims.front() == gemm.m &&
        strides.front() == 1 && walksRows && elements == gemm.m) {
        return BiasMode::Column;
    }
    return std::nullopt;
}

/// The operand a kernel's other load reads, as the GEMM's epilogue would load it: that load's
/// value, or the int8 or uint8 tensor a lone kernel dequantised into it (the GEMM then
/// dequantises it where its block lands, and that kernel goes).
struct OperandSource {
    const VectorLoad* load = nullptr;
    ValueId value = kNoValue;
    DType stored = DType::Fp32;
    float scale = 1.0f;
    int32_t zeroPoint = 0;
    VectorTiles* dequantizer = nullptr;
};

/// The kernel `tiles` runs when it only dequantises an int8 or uint8 tensor into a tensor of the
/// same shape, element for element (a DequantizeLinear before a residual Add): its source.
std::optional<OperandSource> dequantizationBy(VectorTiles& tiles, const Graph& graph) {
    if (tiles.kernels.size() != 1) return std::nullopt;
    const VectorProblem& p = tiles.kernels[0].problem;
    if (p.loads.size() != 1 || p.steps.size() != 1 || p.stores.size() != 1 || hasWindows(p) || hasIndexedLoads(p)) {
        return std::nullopt;
    }
    const VectorLoad& load = p.loads[0];
    const VectorStep& step = p.steps[0];
    const DType type = p.buffers[load.buffer].dtype;
    const int64_t elements = elementCount(graph.value(p.stores[0].view.value).shape);
    if (step.op != isa::VectorOp::Dequantize || step.src0 != load.buffer || step.src1 || !step.immediate ||
        (type != DType::Int8 && type != DType::UInt8) || p.stores[0].buffer != step.dst ||
        elementCount(graph.value(load.view.value).shape) != elements || !denseWalk(p, load.view, elements) ||
        !denseWalk(p, p.stores[0].view, elements)) {
        return std::nullopt;
    }
    return OperandSource{nullptr, load.view.value, type, std::bit_cast<float>(*step.immediate),
                         std::bit_cast<int32_t>(step.immediate2), &tiles};
}

/// How a kernel's load broadcasts over the GEMM's result, as vectorMode does, or, for one
/// batch, walked element for element in the result's order (a residual connection's other
/// branch): Full. nullopt otherwise.
std::optional<BiasMode> operandMode(const VectorProblem& p, const VectorLoad& load, const GemmProblem& gemm, const Graph& graph,
                                    int64_t elements) {
    if (const std::optional<BiasMode> mode = vectorMode(p, load, gemm, graph)) return mode;
    if (gemm.batch == 1 && p.buffers[load.buffer].extent == BufferExtent::Block && denseWalk(p, load.view, elements)) {
        return BiasMode::Full;
    }
    return std::nullopt;
}

/// The kernel's steps as an epilogue on `dtype` results: a chain from the loaded buffer to the
/// stored one, run in the accumulator, each step in its operand's type but a cast between int32
/// and fp32 (in place: the same width) and a last step that narrows the results to the type the
/// GEMM stores (a cast to fp16 or bf16, a quantise to int8 or uint8: an integer GEMM's
/// requantisation); nullopt otherwise. Steps take one operand, but one step may take the
/// `source` load's (operandMode: a per-channel requantisation's multipliers, a residual branch
/// of the result's shape).
std::optional<Epilogue> epilogueOf(const VectorProblem& p, const GemmProblem& gemm, const Graph& graph, uint32_t current,
                                   size_t firstStep, const std::optional<OperandSource>& source, int64_t elements) {
    using isa::VectorOp;
    Epilogue epilogue{{}, gemm.outputType};
    DType type = gemm.outputType;
    bool operandTaken = false;
    for (size_t i = firstStep; i < p.steps.size(); ++i) {
        const VectorStep& step = p.steps[i];
        const DType to = p.buffers[step.dst].dtype;
        // A commutative step may read the results as its second operand.
        uint32_t src0 = step.src0;
        std::optional<uint32_t> src1 = step.src1;
        const bool commutative = step.op == VectorOp::Add || step.op == VectorOp::Mul || step.op == VectorOp::Max ||
                                 step.op == VectorOp::Min;
        if (src1 && src0 != current && *src1 == current && commutative) std::swap(src0, *src1);
        if (src0 != current || isa::isReduction(step.op) || step.op == VectorOp::Fill ||
            p.buffers[step.dst].extent != BufferExtent::Block) {
            return std::nullopt;
        }
        std::optional<BiasMode> mode;
        if (src1) {
            if (operandTaken || !source || *src1 != source->load->buffer || p.buffers[*src1].dtype != type ||
                !(mode = operandMode(p, *source->load, gemm, graph, elements)) ||
                (source->stored != DType::Fp32 && *mode != BiasMode::Full)) {
                return std::nullopt;
            }
            operandTaken = true;
        }
        const bool inPlace = step.op == VectorOp::Cast && dtypeSize(type) == 4 && dtypeSize(to) == 4;
        const bool narrowing = i + 1 == p.steps.size() && type == DType::Fp32 &&
                               ((step.op == VectorOp::Cast && (to == DType::Bf16 || to == DType::Fp16)) ||
                                (step.op == VectorOp::Quantize && (to == DType::Int8 || to == DType::UInt8)));
        if (!isa::vectorSupports(step.op, type, to) || (to != type && !inPlace && !narrowing)) return std::nullopt;
        EpilogueStep fused{step.op, step.immediate, step.immediate2, type, to, kNoValue, BiasMode::Column};
        if (mode) {
            fused.operand = source->value;
            fused.operandMode = *mode;
            fused.operandType = source->stored;
            fused.operandScale = source->scale;
            fused.operandZeroPoint = source->zeroPoint;
        }
        epilogue.steps.push_back(fused);
        type = to;
        current = step.dst;
    }
    if (p.stores[0].buffer != current || p.buffers[current].dtype != type) return std::nullopt;
    if (source && !operandTaken) return std::nullopt;  // a load no step takes
    epilogue.stored = type;
    return epilogue;
}

/// An integer GEMM's requantisation as the graph spells it (a cast of the int32 sums to fp32, a
/// multiply by the scale, a quantise with scale 1) becomes the vector unit's one-step
/// requantize, and a dequantisation (the cast and the multiply) its one-step dequantize, scale
/// per channel or immediate: each computes what the steps do, bit for bit (the same fp32
/// product, divided by 1).
void foldConversions(std::vector<EpilogueStep>& steps) {
    using isa::VectorOp;
    const auto erase = [&](size_t at) { steps.erase(steps.begin() + static_cast<std::ptrdiff_t>(at)); };
    for (size_t i = 0; i + 1 < steps.size(); ++i) {
        const EpilogueStep& cast = steps[i];
        const EpilogueStep& mul = steps[i + 1];
        if (cast.op == VectorOp::Cast && cast.in == DType::Int32 && cast.out == DType::Fp32 && mul.op == VectorOp::Mul &&
            (mul.immediate || mul.operand != kNoValue)) {
            steps[i] = {VectorOp::Dequantize, mul.immediate, 0, DType::Int32, DType::Fp32, mul.operand, mul.operandMode};
            erase(i + 1);
        }
        // A dequantisation of the int32 sums (zero point 0) quantised with scale 1: one requantize.
        if (i + 1 < steps.size() && steps[i].op == VectorOp::Dequantize && steps[i].in == DType::Int32 &&
            steps[i].immediate2 == 0 && steps[i + 1].op == VectorOp::Quantize &&
            steps[i + 1].immediate == std::bit_cast<uint32_t>(1.0f)) {
            steps[i].op = VectorOp::Requantize;
            steps[i].immediate2 = steps[i + 1].immediate2;
            steps[i].out = steps[i + 1].out;
            erase(i + 1);
        }
    }
}

/// A bias the kernel's first step adds to the GEMM's result (loaded into `result`) from `bias`,
/// that the GEMM can add itself: a tensor of one value per result row or column (vectorMode).
/// Its mode.
std::optional<BiasMode> leadingBias(const VectorProblem& p, uint32_t result, const VectorLoad& bias, const GemmProblem& gemm,
                                    const Graph& graph) {
    if (p.steps.empty() || gemm.bias != kNoValue || !gemm.epilogue.empty()) return std::nullopt;
    const VectorStep& add = p.steps[0];
    if (add.op != isa::VectorOp::Add || add.src0 != result || add.src1 != bias.buffer ||
        p.buffers[bias.buffer].dtype != gemm.accumulatorType) {
        return std::nullopt;
    }
    return vectorMode(p, bias, gemm, graph);
}

/// Whether the kernel's first step adds `other` to the GEMM's result (loaded into `result`)
/// element for element, so that the GEMM can start its accumulators from it
/// (GemmProblem::residual): fp32, walked in the result's order, added before any scale or other
/// epilogue step.
bool leadingResidual(const VectorProblem& p, uint32_t result, const VectorLoad& other, const GemmProblem& gemm,
                     int64_t elements) {
    if (p.steps.empty() || gemm.residual != kNoValue || !gemm.epilogue.empty() || gemm.alpha != 1.0f ||
        gemm.accumulatorType != DType::Fp32) {
        return false;
    }
    const VectorStep& add = p.steps[0];
    const bool operands = add.src1 && ((add.src0 == result && *add.src1 == other.buffer) ||
                                       (add.src0 == other.buffer && *add.src1 == result));
    if (add.op != isa::VectorOp::Add || !operands || other.buffer == result ||
        p.buffers[other.buffer].extent != BufferExtent::Block || p.buffers[other.buffer].dtype != DType::Fp32 ||
        !denseWalk(p, other.view, elements)) {
        return false;
    }
    return true;
}

}  // namespace

int fuseGemmEpilogues(TileProgram& program, const Graph& graph, const ArchConfig& config, const CostModel& model) {
    // The storage each value lives in, and how many ops read each storage.
    const auto storageOf = [&](ValueId id) {
        const auto view = program.views.find(id);
        return view == program.views.end() ? id : view->second;
    };
    std::map<ValueId, int> readers;
    for (const TileOp& op : program.ops) {
        const auto* vector = std::get_if<VectorTiles>(&op);
        if (vector && vector->kernels.empty()) continue;  // views and fused ops read nothing themselves
        for (ValueId id : graph.nodes.at(tileOpId(op)).inputs) {
            if (id != kNoValue) ++readers[storageOf(id)];
        }
    }
    std::set<ValueId> outputs;
    for (ValueId id : graph.outputs) outputs.insert(storageOf(id));
    std::map<ValueId, GemmTiles*> producers;
    for (TileOp& op : program.ops) {
        if (auto* gemm = std::get_if<GemmTiles>(&op)) producers[gemm->problem.output] = gemm;
    }
    const std::map<uint32_t, size_t> position = opPositions(program);
    // Where a value is ready: after the op that produces it (or the GEMM its producer fused
    // into), or from the start.
    const auto readyAt = [&](ValueId id) -> std::optional<size_t> {
        const ValueId storage = storageOf(id);
        if (const auto gemm = producers.find(storage); gemm != producers.end()) return position.at(gemm->second->problem.opId);
        const int producer = graph.value(storage).producer;
        return producer < 0 ? std::nullopt : std::optional(position.at(static_cast<uint32_t>(producer)));
    };
    int fusions = 0;
    std::set<GemmTiles*> fused;
    for (TileOp& op : program.ops) {
        auto* reader = std::get_if<VectorTiles>(&op);
        if (!reader || reader->kernels.size() != 1) continue;
        const VectorProblem& p = reader->kernels[0].problem;
        if (p.loads.empty() || p.loads.size() > 3 || p.stores.size() != 1 || hasWindows(p) || hasIndexedLoads(p)) continue;
        // Fuses the kernel into the GEMM whose result `load` reads; false when it cannot.
        const auto fuseInto = [&](const VectorLoad& load) {
            const ValueId storage = storageOf(load.view.value);
            const auto producer = producers.find(storage);
            if (producer == producers.end() || readers[storage] != 1 || outputs.contains(storage)) return false;
            GemmTiles* tiles = producer->second;
            GemmProblem& gemm = tiles->problem;
            // A GEMM that rounds or narrows its results when it stores them has nothing exact to
            // fuse after that.
            if (epilogueResult(gemm) != gemm.outputType || dtypeSize(gemm.outputType) < 4) return false;
            const int64_t elements = elementCount(graph.value(storage).shape);
            const ValueId result = p.stores[0].view.value;
            if (!denseWalk(p, load.view, elements) || !denseWalk(p, p.stores[0].view, elements) ||
                program.views.contains(result)) {
                return false;
            }
            // The other loads, each ready before the GEMM runs: a bias the GEMM adds or a residual
            // its accumulators start from, which the first step adds; a vector a later step takes.
            GemmProblem fusedGemm = gemm;
            size_t firstStep = 0;
            uint32_t current = load.buffer;
            const VectorLoad* operand = nullptr;
            for (const VectorLoad& other : p.loads) {
                if (&other == &load) continue;
                const std::optional<size_t> ready = readyAt(other.view.value);
                if (storageOf(other.view.value) == storage || (ready && *ready >= position.at(gemm.opId))) return false;
                if (firstStep == 0) {
                    if (const std::optional<BiasMode> mode = leadingBias(p, load.buffer, other, gemm, graph)) {
                        fusedGemm.bias = other.view.value;
                        fusedGemm.biasMode = *mode;
                        fusedGemm.beta = 1.0f;
                        firstStep = 1;
                        continue;
                    }
                    if (leadingResidual(p, load.buffer, other, gemm, elements)) {
                        fusedGemm.residual = other.view.value;
                        firstStep = 1;
                        continue;
                    }
                }
                if (operand) return false;
                operand = &other;
            }
            if (firstStep == 1) current = p.steps[0].dst;
            std::optional<OperandSource> source;
            if (operand) {
                source = OperandSource{operand, operand->view.value};
                // A block operand (of the result's shape, or a one-row kernel's) that a vector
                // kernel computes for this kernel alone: vector-kernel fusion merges that kernel
                // into this one, so that its result is never stored, unless it only dequantises
                // an int8 tensor, which the GEMM then loads and dequantises itself.
                const ValueId other = storageOf(operand->view.value);
                const int made = graph.value(other).producer;
                auto* maker = made < 0 ? nullptr : std::get_if<VectorTiles>(&program.ops[position.at(static_cast<uint32_t>(made))]);
                if (maker && !maker->kernels.empty() && readers[other] == 1 && !outputs.contains(other) &&
                    !program.views.contains(operand->view.value) && p.buffers[operand->buffer].extent == BufferExtent::Block) {
                    std::optional<OperandSource> narrow = dequantizationBy(*maker, graph);
                    if (!narrow || operandMode(p, *operand, gemm, graph, elements) != BiasMode::Full) return false;
                    narrow->load = operand;
                    source = narrow;
                }
            }
            const std::optional<Epilogue> epilogue = epilogueOf(p, gemm, graph, current, firstStep, source, elements);
            if (!epilogue || graph.value(result).dtype != epilogue->stored) return false;
            fusedGemm.epilogue.insert(fusedGemm.epilogue.end(), epilogue->steps.begin(), epilogue->steps.end());
            foldConversions(fusedGemm.epilogue);
            fusedGemm.outputType = epilogue->stored;
            // A bias or a vector operand takes SRAM slots of its own.
            const GemmFootprint footprint = gemmFootprint(fusedGemm, tiles->schedule, config);
            if (footprint.sramBytes > config.sram.sizeBytes || footprint.accumulatorBytes > config.accumulator.sizeBytes) {
                return false;
            }
            gemm = std::move(fusedGemm);
            if (source && source->dequantizer) {  // the GEMM dequantises its source itself
                source->dequantizer->kernels.clear();
                source->dequantizer->fusedInto = gemm.opId;
            }
            tiles->schedule.estimate = model.estimateGemm(gemm, tiles->schedule);
            fused.insert(tiles);
            gemm.output = result;
            producers.erase(producer);
            producers[result] = tiles;  // a later elementwise op may fuse onto this one
            reader->kernels.clear();
            reader->fusedInto = gemm.opId;
            return true;
        };
        // The load of a GEMM's result: any load a GEMM made (when two are, either may be the
        // residual of the other).
        for (const VectorLoad& load : p.loads) {
            if (producers.contains(storageOf(load.view.value)) && fuseInto(load)) {
                ++fusions;
                break;
            }
        }
    }
    // A heavy epilogue changes which blocks suit the GEMM best (its vector work overlaps the
    // next block's array work): the schedule is chosen again with it. A light one leaves the
    // choice as it was, where the estimates of close candidates differ by less than the cost
    // model's error.
    for (GemmTiles* tiles : fused) {
        const CostEstimate& e = tiles->schedule.estimate;
        if (e.vectorCycles < kHeavyEpilogue * e.tensorCycles) continue;
        const std::optional<GemmSchedule> schedule = chooseGemmSchedule(tiles->problem, config, model);
        if (schedule && model.score(schedule->estimate) < model.score(tiles->schedule.estimate)) tiles->schedule = *schedule;
    }
    return fusions;
}

}  // namespace npusim::compiler
