// fuse-gathered-operands: an npusim.Im2Col read only by a GEMM's B operand is gathered by the
// GEMM straight from the Im2Col's input, so that the patch matrix never exists in DRAM.
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

}  // namespace

int fuseGatheredOperands(TileProgram& program, const Graph& graph, const ArchConfig& config, const CostModel& model) {
    std::map<ValueId, int> readers = graph.readerCounts();
    const std::set<ValueId> outputs(graph.outputs.begin(), graph.outputs.end());
    const std::map<uint32_t, size_t> position = opPositions(program);
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
        // Gathering pays when it beats writing the patch matrix and reading it back. Fused,
        // the GEMM gathers on chip when memory planning likely keeps im2col's input (an
        // intermediate) in SRAM beside the GEMM's buffers.
        const ValueId sourceId = producer.inputs.at(0);
        const Value& source = graph.value(sourceId);
        const uint64_t sourceBytes = source.producer >= 0 ? residentFootprint(source, config.sram) : 0;
        const bool sourceResident =
            sourceBytes != 0 && sourceBytes + gemmFootprint(gathered, gemm->schedule, config).sramBytes <= config.sram.sizeBytes;
        const CostModel fusedModel(config, model.params(), sourceResident ? std::set<ValueId>{sourceId} : std::set<ValueId>{});
        const std::optional<GemmSchedule> schedule = chooseGemmColumns(gathered, gemm->schedule, config, fusedModel);
        // Apart, memory planning likely keeps the patch matrix in SRAM when it fits beside the
        // two ops' buffers and im2col's input (which may be resident too); im2col then writes
        // it on chip. The GEMM's loads of it are still priced from DRAM.
        uint64_t working = gemmFootprint(gemm->problem, gemm->schedule, config).sramBytes;
        for (const VectorKernel& k : im2col->kernels) working = std::max(working, vectorFootprint(k.problem, k.schedule, config));
        const bool resident = residentFootprint(graph.value(b.value), config.sram) + sourceBytes + working <= config.sram.sizeBytes;
        const CostModel apartModel(config, model.params(), resident ? std::set<ValueId>{b.value} : std::set<ValueId>{});
        CostEstimate apart = gemm->schedule.estimate;
        apart += apartModel.estimateTileOp(TileOp(*im2col));
        if (!schedule || model.score(schedule->estimate) >= model.score(apart)) continue;
        gemm->problem = std::move(gathered);
        gemm->schedule = *schedule;
        im2col->kernels.clear();
        im2col->fusedInto = gemm->problem.opId;
        ++fusions;
    }
    return fusions;
}

}  // namespace npusim::compiler
