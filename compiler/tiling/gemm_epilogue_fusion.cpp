// fuse-gemm-epilogues: an elementwise op that alone reads a GEMM's result, element for element,
// through one-operand steps, runs as the GEMM's epilogue on each result block in the accumulator.
#include "compiler/tiling/fusion.h"

#include <algorithm>
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

/// The kernel's steps as an epilogue on `dtype` results: a chain from the loaded buffer to the
/// stored one through one-operand steps, run in the accumulator, each in its operand's type but
/// a cast between int32 and fp32 (in place: the same width) and a last step that narrows the
/// results to the type the GEMM stores (a cast to fp16 or bf16, a quantise to int8 or uint8: an
/// integer GEMM's requantisation); nullopt otherwise.
std::optional<Epilogue> epilogueOf(const VectorProblem& p, DType dtype, uint32_t current, size_t firstStep) {
    using isa::VectorOp;
    Epilogue epilogue{{}, dtype};
    DType type = dtype;
    for (size_t i = firstStep; i < p.steps.size(); ++i) {
        const VectorStep& step = p.steps[i];
        const DType to = p.buffers[step.dst].dtype;
        if (step.src0 != current || step.src1 || isa::isReduction(step.op) || step.op == VectorOp::Fill ||
            p.buffers[step.dst].extent != BufferExtent::Block) {
            return std::nullopt;
        }
        const bool inPlace = step.op == VectorOp::Cast && dtypeSize(type) == 4 && dtypeSize(to) == 4;
        const bool narrowing = i + 1 == p.steps.size() && type == DType::Fp32 &&
                               ((step.op == VectorOp::Cast && (to == DType::Bf16 || to == DType::Fp16)) ||
                                (step.op == VectorOp::Quantize && (to == DType::Int8 || to == DType::UInt8)));
        if (!isa::vectorSupports(step.op, type, to) || (to != type && !inPlace && !narrowing)) return std::nullopt;
        epilogue.steps.push_back({step.op, step.immediate, step.immediate2, type, to});
        type = to;
        current = step.dst;
    }
    if (p.stores[0].buffer != current || p.buffers[current].dtype != type) return std::nullopt;
    epilogue.stored = type;
    return epilogue;
}

/// A bias the kernel's first step adds to the GEMM's result (loaded into `result`), that the
/// GEMM can add itself: a tensor of one value per result column (a Linear layer's bias after
/// a MatMul) or, for one batch, per result row, read whole and in order. Its value and mode.
std::optional<std::pair<ValueId, BiasMode>> leadingBias(const VectorProblem& p, uint32_t result, const GemmProblem& gemm,
                                                        const Graph& graph) {
    if (p.loads.size() != 2 || p.steps.empty() || gemm.bias != kNoValue || !gemm.epilogue.empty() || p.colDims != 1 ||
        p.cols() != gemm.n) {
        return std::nullopt;
    }
    const VectorStep& add = p.steps[0];
    const VectorLoad& bias = p.loads[p.loads[0].buffer == result ? 1 : 0];
    if (add.op != isa::VectorOp::Add || add.src0 != result || add.src1 != bias.buffer || bias.view.offset != 0 ||
        p.buffers[bias.buffer].dtype != gemm.accumulatorType) {
        return std::nullopt;
    }
    const int64_t elements = elementCount(graph.value(bias.view.value).shape);
    const std::vector<int64_t>& strides = bias.view.strides;
    const bool perColumn = p.buffers[bias.buffer].extent == BufferExtent::Row && strides.back() == 1 && elements == gemm.n;
    const bool perRow = p.buffers[bias.buffer].extent == BufferExtent::Column && gemm.batch == 1 && p.rowDims() == 1 &&
                        p.rows() == gemm.m && strides.front() == 1 && elements == gemm.m;
    if (!perColumn && !perRow) return std::nullopt;
    return std::pair{bias.view.value, perColumn ? BiasMode::Row : BiasMode::Column};
}

/// A tensor the kernel's first step adds to the GEMM's result (loaded into `result`) element
/// for element, which the GEMM can start its accumulators from (GemmProblem::residual): fp32,
/// walked in the result's order, added before any scale or other epilogue step. Its load.
const VectorLoad* leadingResidual(const VectorProblem& p, uint32_t result, const GemmProblem& gemm, int64_t elements) {
    if (p.loads.size() != 2 || p.steps.empty() || gemm.residual != kNoValue || !gemm.epilogue.empty() ||
        gemm.alpha != 1.0f || gemm.accumulatorType != DType::Fp32) {
        return nullptr;
    }
    const VectorStep& add = p.steps[0];
    const VectorLoad& other = p.loads[p.loads[0].buffer == result ? 1 : 0];
    const bool operands = add.src1 && ((add.src0 == result && *add.src1 == other.buffer) ||
                                       (add.src0 == other.buffer && *add.src1 == result));
    if (add.op != isa::VectorOp::Add || !operands || other.buffer == result ||
        p.buffers[other.buffer].extent != BufferExtent::Block || p.buffers[other.buffer].dtype != DType::Fp32 ||
        !denseWalk(p, other.view, elements)) {
        return nullptr;
    }
    return &other;
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
        if (p.loads.empty() || p.loads.size() > 2 || p.stores.size() != 1 || hasWindows(p) || hasIndexedLoads(p)) continue;
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
            // A second operand: a bias the GEMM adds, or a residual its accumulators start from
            // (ready before the GEMM runs).
            std::optional<std::pair<ValueId, BiasMode>> bias;
            const VectorLoad* residual = nullptr;
            if (p.loads.size() == 2 && !(bias = leadingBias(p, load.buffer, gemm, graph))) {
                residual = leadingResidual(p, load.buffer, gemm, elements);
                if (!residual || storageOf(residual->view.value) == storage) return false;
                const std::optional<size_t> ready = readyAt(residual->view.value);
                if (ready && *ready >= position.at(gemm.opId)) return false;
            }
            const std::optional<Epilogue> epilogue =
                p.loads.size() == 2 ? epilogueOf(p, gemm.outputType, p.steps[0].dst, 1)
                                    : epilogueOf(p, gemm.outputType, load.buffer, 0);
            if (!epilogue || graph.value(result).dtype != epilogue->stored) return false;
            if (bias) {
                GemmProblem biased = gemm;
                biased.bias = bias->first;
                biased.biasMode = bias->second;
                biased.beta = 1.0f;
                const GemmFootprint footprint = gemmFootprint(biased, tiles->schedule, config);
                if (footprint.sramBytes > config.sram.sizeBytes || footprint.accumulatorBytes > config.accumulator.sizeBytes) {
                    return false;
                }
                gemm = std::move(biased);
            }
            if (residual) gemm.residual = residual->view.value;
            gemm.epilogue.insert(gemm.epilogue.end(), epilogue->steps.begin(), epilogue->steps.end());
            gemm.outputType = epilogue->stored;
            tiles->schedule.estimate = model.estimateGemm(gemm, tiles->schedule);
            fused.insert(tiles);
            gemm.output = result;
            producers.erase(producer);
            producers[result] = tiles;  // a later elementwise op may fuse onto this one
            reader->kernels.clear();
            reader->fusedInto = gemm.opId;
            return true;
        };
        // The load of a GEMM's result: the first, or with a second operand the one a GEMM made;
        // when both are, either may be the residual of the other.
        const auto isResult = [&](const VectorLoad& load) { return producers.contains(storageOf(load.view.value)); };
        const bool firstIsResult = isResult(p.loads[0]);
        if (p.loads.size() == 1 || firstIsResult) {
            if (fuseInto(p.loads[0])) {
                ++fusions;
                continue;
            }
        }
        if (p.loads.size() == 2 && isResult(p.loads[1]) && fuseInto(p.loads[1])) ++fusions;
    }
    // A heavy epilogue changes which blocks suit the GEMM best (its vector work overlaps the
    // next block's array work): the schedule is chosen again with it. A light one leaves the
    // choice as it was, where the estimates of close candidates differ by less than the cost
    // model's error.
    for (GemmTiles* tiles : fused) {
        const CostEstimate& e = tiles->schedule.estimate;
        if (e.vectorCycles < kHeavyEpilogue * e.tensorCycles) continue;
        const std::optional<GemmSchedule> schedule = chooseGemmSchedule(tiles->problem, config, model);
        if (schedule && schedule->estimate.totalCycles < tiles->schedule.estimate.totalCycles) tiles->schedule = *schedule;
    }
    return fusions;
}

}  // namespace npusim::compiler
