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

/// The kernel's steps as an epilogue on `dtype` results: a chain from the loaded buffer to the
/// stored one through one-operand steps; nullopt otherwise.
std::optional<std::vector<EpilogueStep>> epilogueOf(const VectorProblem& p, DType dtype, uint32_t current,
                                                    size_t firstStep) {
    std::vector<EpilogueStep> steps;
    for (size_t i = firstStep; i < p.steps.size(); ++i) {
        const VectorStep& step = p.steps[i];
        if (step.src0 != current || step.src1 || isa::isReduction(step.op) || step.op == isa::VectorOp::Fill ||
            !isa::vectorSupports(step.op, dtype, dtype) || p.buffers[step.dst].dtype != dtype ||
            p.buffers[step.dst].extent != BufferExtent::Block) {
            return std::nullopt;
        }
        steps.push_back({step.op, step.immediate, step.immediate2});
        current = step.dst;
    }
    if (p.stores[0].buffer != current || p.buffers[current].dtype != dtype) return std::nullopt;
    return steps;
}

/// A bias the kernel's first step adds to the GEMM's result (loaded into `result`), that the
/// GEMM can add itself: a tensor of one value per result column (a Linear layer's bias after
/// a MatMul) or, for one batch, per result row, read whole and in order. Its value and mode.
std::optional<std::pair<ValueId, BiasMode>> leadingBias(const VectorProblem& p, uint32_t result, const GemmProblem& gemm,
                                                        const Graph& graph) {
    if (p.loads.size() != 2 || p.steps.empty() || gemm.bias != kNoValue || !gemm.epilogue.empty() ||
        gemm.a.gather.size() + gemm.b.gather.size() != 0 || p.colDims != 1 || p.cols() != gemm.n) {
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
    int fusions = 0;
    std::set<GemmTiles*> fused;
    for (TileOp& op : program.ops) {
        auto* reader = std::get_if<VectorTiles>(&op);
        if (!reader || reader->kernels.size() != 1) continue;
        const VectorProblem& p = reader->kernels[0].problem;
        if (p.loads.empty() || p.loads.size() > 2 || p.stores.size() != 1 || hasWindows(p)) continue;
        // The load of a GEMM's result (the first, or with a bias the one a producer made).
        const auto producerOf = [&](const VectorLoad& load) { return producers.find(storageOf(load.view.value)); };
        const VectorLoad& load = p.loads.size() == 2 && producerOf(p.loads[0]) == producers.end() ? p.loads[1] : p.loads[0];
        const ValueId storage = storageOf(load.view.value);
        const auto producer = producers.find(storage);
        if (producer == producers.end() || readers[storage] != 1 || outputs.contains(storage)) continue;
        GemmTiles* tiles = producer->second;
        GemmProblem& gemm = tiles->problem;
        const int64_t elements = elementCount(graph.value(storage).shape);
        const ValueId result = p.stores[0].view.value;
        if (!denseWalk(p, load.view, elements) || !denseWalk(p, p.stores[0].view, elements) ||
            graph.value(result).dtype != gemm.accumulatorType || program.views.contains(result)) {
            continue;
        }
        std::optional<std::pair<ValueId, BiasMode>> bias;
        if (p.loads.size() == 2 && !(bias = leadingBias(p, load.buffer, gemm, graph))) continue;
        const std::optional<std::vector<EpilogueStep>> steps =
            bias ? epilogueOf(p, gemm.accumulatorType, p.steps[0].dst, 1) : epilogueOf(p, gemm.accumulatorType, load.buffer, 0);
        if (!steps) continue;
        if (bias) {
            GemmProblem biased = gemm;
            biased.bias = bias->first;
            biased.biasMode = bias->second;
            biased.beta = 1.0f;
            const GemmFootprint footprint = gemmFootprint(biased, tiles->schedule, config);
            if (footprint.sramBytes > config.sram.sizeBytes || footprint.accumulatorBytes > config.accumulator.sizeBytes) continue;
            gemm = std::move(biased);
        }
        gemm.epilogue.insert(gemm.epilogue.end(), steps->begin(), steps->end());
        tiles->schedule.estimate = model.estimateGemm(gemm, tiles->schedule);
        fused.insert(tiles);
        gemm.output = result;
        producers.erase(producer);
        producers[result] = tiles;  // a later elementwise op may fuse onto this one
        reader->kernels.clear();
        reader->fusedInto = gemm.opId;
        ++fusions;
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
