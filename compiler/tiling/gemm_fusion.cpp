// Fusions into GEMMs: an elementwise reader as the GEMM's epilogue, an Im2Col as its gathered
// B operand.
#include "compiler/tiling/fusion.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/graph/strided_copy.h"
#include "compiler/tile/footprint.h"
#include "compiler/tiling/tiling.h"

namespace npusim::compiler {
namespace {

/// Whether a piece can be gathered into a `columns`-wide row-major matrix: at most one dim
/// steps over whole rows, and the others stay inside the piece's first row, the last of them
/// stepping by one element.
bool gatherable(const StridedCopy& copy, int64_t columns) {
    int rowDims = 0;
    int64_t reach = copy.outputOffset % columns;
    for (size_t d = 0; d < copy.dims.size(); ++d) {
        if (copy.dims[d] <= 1) continue;
        if (copy.outputStrides[d] % columns == 0) {
            ++rowDims;
        } else {
            reach += (copy.dims[d] - 1) * copy.outputStrides[d];
        }
    }
    const bool unitRun = copy.dims.empty() || copy.dims.back() <= 1 || copy.outputStrides.back() == 1;
    return rowDims <= 1 && reach < columns && unitRun;
}

/// Whether a view walks its whole tensor of `elements` in row-major order over the problem's
/// index space.
bool denseWalk(const VectorProblem& p, const TensorView& view, int64_t elements) {
    if (view.offset != 0 || elementCount(p.dims) != elements) return false;
    int64_t stride = 1;
    for (size_t d = p.dims.size(); d-- > 0;) {
        if (p.dims[d] != 1 && view.strides[d] != stride) return false;
        stride *= p.dims[d];
    }
    return true;
}

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
        if (p.loads.size() != 1 || p.stores.size() != 1) continue;
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

int fuseGatheredOperands(TileProgram& program, const Graph& graph, const ArchConfig& config, const CostModel& model) {
    std::map<ValueId, int> readers;
    for (const Node& node : graph.nodes) {
        for (ValueId id : node.inputs) {
            if (id != kNoValue) ++readers[id];
        }
    }
    const std::set<ValueId> outputs(graph.outputs.begin(), graph.outputs.end());
    std::map<uint32_t, size_t> position;
    for (size_t i = 0; i < program.ops.size(); ++i) position[tileOpId(program.ops[i])] = i;
    int fusions = 0;
    for (TileOp& op : program.ops) {
        auto* gemm = std::get_if<GemmTiles>(&op);
        if (!gemm) continue;
        const GemmOperand& b = gemm->problem.b;
        const Value& value = graph.value(b.value);
        if (value.producer < 0 || b.transposed || gemm->problem.batch != 1 || readers[b.value] != 1 ||
            outputs.contains(b.value)) {
            continue;
        }
        const Node& producer = graph.nodes.at(static_cast<size_t>(value.producer));
        auto* im2col = std::get_if<VectorTiles>(&program.ops[position.at(static_cast<uint32_t>(value.producer))]);
        if (producer.kind != OpKind::Im2Col || !im2col || im2col->kernels.empty()) continue;
        const std::optional<std::vector<StridedCopy>> copies = stridedCopies(graph, producer);
        if (!copies || !std::all_of(copies->begin(), copies->end(),
                                    [&](const StridedCopy& c) { return gatherable(c, gemm->problem.n); })) {
            continue;
        }
        GemmProblem gathered = gemm->problem;
        for (const StridedCopy& copy : *copies) gathered.b.gather.push_back({producer.inputs[copy.input], copy});
        // Gathering pays when it beats writing the patch matrix and reading it back.
        const std::optional<GemmSchedule> schedule = chooseGemmColumns(gathered, gemm->schedule, config, model);
        // Apart, memory planning likely keeps the patch matrix in SRAM when it fits beside the
        // two ops' buffers and im2col's input (which may be resident too); im2col then writes
        // it on chip. The GEMM's loads of it are still priced from DRAM.
        uint64_t working = gemmFootprint(gemm->problem, gemm->schedule, config).sramBytes;
        for (const VectorKernel& k : im2col->kernels) working = std::max(working, vectorFootprint(k.problem, k.schedule, config));
        const Value& source = graph.value(producer.inputs.at(0));
        const uint64_t sourceBytes = source.producer >= 0 ? residentFootprint(source, config.sram) : 0;
        const bool resident = residentFootprint(graph.value(b.value), config.sram) + sourceBytes + working <= config.sram.sizeBytes;
        const CostModel apartModel(config, model.params(), resident ? std::set<ValueId>{b.value} : std::set<ValueId>{});
        const double apart = gemm->schedule.estimate.totalCycles + apartModel.estimateTileOp(TileOp(*im2col)).totalCycles;
        if (!schedule || schedule->estimate.totalCycles >= apart) continue;
        gemm->problem = std::move(gathered);
        gemm->schedule = *schedule;
        im2col->kernels.clear();
        im2col->fusedInto = gemm->problem.opId;
        ++fusions;
    }
    return fusions;
}

}  // namespace npusim::compiler
