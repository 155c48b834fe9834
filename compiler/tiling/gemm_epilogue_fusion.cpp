// fuse-gemm-epilogues: an elementwise op that alone reads a GEMM's result, element for element,
// through one-operand steps, runs as the GEMM's epilogue on each result block in the accumulator.
#include "compiler/tiling/fusion.h"

#include <algorithm>
#include <map>
#include <set>

namespace npusim::compiler {
namespace {

/// The kernel's steps as an epilogue on `dtype` results: a chain from the loaded buffer to the
/// stored one through one-operand steps; nullopt otherwise.
std::optional<std::vector<EpilogueStep>> epilogueOf(const VectorProblem& p, DType dtype) {
    if (p.loads.size() != 1 || p.stores.size() != 1) return std::nullopt;
    uint32_t current = p.loads[0].buffer;
    std::vector<EpilogueStep> steps;
    for (const VectorStep& step : p.steps) {
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

}  // namespace

int fuseGemmEpilogues(TileProgram& program, const Graph& graph) {
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
    for (TileOp& op : program.ops) {
        auto* reader = std::get_if<VectorTiles>(&op);
        if (!reader || reader->kernels.size() != 1) continue;
        const VectorProblem& p = reader->kernels[0].problem;
        if (p.loads.size() != 1 || p.stores.size() != 1 || hasWindows(p)) continue;
        const ValueId storage = storageOf(p.loads[0].view.value);
        const auto producer = producers.find(storage);
        if (producer == producers.end() || readers[storage] != 1 || outputs.contains(storage)) continue;
        GemmTiles* tiles = producer->second;
        GemmProblem& gemm = tiles->problem;
        const int64_t elements = elementCount(graph.value(storage).shape);
        const ValueId result = p.stores[0].view.value;
        if (!denseWalk(p, p.loads[0].view, elements) || !denseWalk(p, p.stores[0].view, elements) ||
            graph.value(result).dtype != gemm.accumulatorType || program.views.contains(result)) {
            continue;
        }
        const std::optional<std::vector<EpilogueStep>> steps = epilogueOf(p, gemm.accumulatorType);
        if (!steps) continue;
        gemm.epilogue.insert(gemm.epilogue.end(), steps->begin(), steps->end());
        gemm.output = result;
        producers.erase(producer);
        producers[result] = tiles;  // a later elementwise op may fuse onto this one
        reader->kernels.clear();
        reader->fusedInto = gemm.opId;
        ++fusions;
    }
    return fusions;
}

}  // namespace npusim::compiler
