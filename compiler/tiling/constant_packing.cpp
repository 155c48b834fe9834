// pack-constant-operands: a constant read only by GEMM operands that load it in blocks of one
// width is stored in bands of that width.
#include "compiler/tiling/constant_packing.h"

#include <algorithm>
#include <set>
#include <variant>

#include "compiler/tile/constant_bands.h"

namespace npusim::compiler {
namespace {

/// One GEMM operand reading a constant: its GEMM, its matrices and the width of its blocks.
struct OperandUse {
    GemmTiles* gemm;
    GemmOperand* operand;
    ConstantBands bands;
};

/// Whether every use can read the constant in one banded layout (bands narrower than its
/// matrices): no other op reads it, and each use reads whole matrices, untransposed, in blocks
/// of one width.
bool packable(ValueId value, const std::vector<OperandUse>& uses, int readers, const Graph& graph) {
    const ConstantBands& first = uses.front().bands;
    const int64_t matrix = first.rows * first.cols;
    if (readers != static_cast<int>(uses.size()) || first.bandColumns >= first.cols || matrix == 0 ||
        elementCount(graph.value(value).shape) % matrix != 0) {
        return false;
    }
    return std::all_of(uses.begin(), uses.end(), [&](const OperandUse& use) {
        const GemmOperand& o = *use.operand;
        return !o.transposed && o.rowStride == 0 && o.gather.empty() && use.bands.rows == first.rows &&
               use.bands.cols == first.cols && use.bands.bandColumns == first.bandColumns &&
               std::all_of(o.batchOffsets.begin(), o.batchOffsets.end(), [&](int64_t offset) { return offset % matrix == 0; });
    });
}

}  // namespace

int packConstantOperands(TileProgram& program, const Graph& graph, const CostModel& model) {
    std::map<ValueId, int> readers = graph.readerCounts();
    std::set<ValueId> excluded(graph.outputs.begin(), graph.outputs.end());
    for (const auto& [view, storage] : program.views) excluded.insert({view, storage});
    std::map<ValueId, std::vector<OperandUse>> uses;
    for (TileOp& op : program.ops) {
        auto* gemm = std::get_if<GemmTiles>(&op);
        if (!gemm) continue;
        GemmProblem& p = gemm->problem;
        const GemmSchedule& s = gemm->schedule;
        if (p.a.packable) uses[p.a.value].push_back({gemm, &p.a, {p.m, p.k, std::min(s.kBlock, p.k)}});
        if (p.b.packable) uses[p.b.value].push_back({gemm, &p.b, {p.k, p.n, std::min(s.nBlock, p.n)}});
    }
    int packed = 0;
    for (auto& [value, list] : uses) {
        if (!excluded.contains(value) && packable(value, list, readers[value], graph)) {
            for (OperandUse& use : list) use.operand->bandColumns = list.front().bands.bandColumns;
            ++packed;
            continue;
        }
        // Stored row-major after all: the blocks narrower than its rows are priced so.
        for (OperandUse& use : list) {
            if (use.bands.bandColumns == use.bands.cols) continue;
            use.operand->packable = false;
            use.gemm->schedule.estimate = model.estimateGemm(use.gemm->problem, use.gemm->schedule);
        }
    }
    return packed;
}

}  // namespace npusim::compiler
