// fuse-strided-operands: a copy read only by a GEMM's operand (an attention's head split,
// K's transpose) is folded into the GEMM, which reads the copy's input in place.
#include "compiler/tiling/fusion.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "compiler/graph/op_support.h"
#include "compiler/tiling/tiling.h"

namespace npusim::compiler {
namespace {

/// Copies larger than this are not mapped element by element.
constexpr int64_t kMaxMappedElements = int64_t{1} << 22;

/// Whether the kernel only moves its input to its output, whole and in order on the output side.
bool plainCopy(const VectorProblem& p, const Graph& graph) {
    if (p.loads.size() != 1 || p.stores.size() != 1 || !p.steps.empty() || p.loads[0].plane || p.loads[0].indices ||
        !p.colPitch.empty() || p.stores[0].buffer != p.loads[0].buffer ||
        p.buffers[p.loads[0].buffer].extent != BufferExtent::Block) {
        return false;
    }
    const Value& out = graph.value(p.stores[0].view.value);
    return graph.value(p.loads[0].view.value).dtype == out.dtype && denseWalk(p, p.stores[0].view, elementCount(out.shape));
}

/// For each element of the copy's output, the element of its input it holds.
std::vector<int64_t> sourceOffsets(const VectorProblem& p) {
    std::vector<int64_t> offsets;
    const TensorView& view = p.loads[0].view;
    ops::forEachPosition(p.dims, [&](const std::vector<int64_t>& position) {
        int64_t offset = view.offset;
        for (size_t d = 0; d < position.size(); ++d) offset += position[d] * view.strides[d];
        offsets.push_back(offset);
    });
    return offsets;
}

/// The operand reading `source` in place, when each of its matrices (logical rows x cols, at
/// its batch offsets in the copy's output) lies there at one offset, one row stride and one
/// column step, one of the two steps being one element.
std::optional<GemmOperand> inPlace(const GemmOperand& operand, int64_t rows, int64_t cols, ValueId source,
                                   const std::vector<int64_t>& offsets) {
    const int64_t stored = storedRowStride(operand, rows, cols);
    const auto at = [&](int64_t base, int64_t r, int64_t c) {
        return offsets[static_cast<size_t>(base + (operand.transposed ? c * stored + r : r * stored + c))];
    };
    GemmOperand out;
    out.value = source;
    int64_t rowStep = 0, colStep = 0;
    for (size_t b = 0; b < operand.batchOffsets.size(); ++b) {
        const int64_t base = operand.batchOffsets[b], origin = at(base, 0, 0);
        if (b == 0) {
            rowStep = rows > 1 ? at(base, 1, 0) - origin : cols;
            colStep = cols > 1 ? at(base, 0, 1) - origin : 1;
        }
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < cols; ++c) {
                if (at(base, r, c) != origin + r * rowStep + c * colStep) return std::nullopt;
            }
        }
        out.batchOffsets.push_back(origin);
    }
    if (colStep == 1 && rowStep > 0) {
        out.rowStride = rowStep;
    } else if (rowStep == 1 && colStep > 0) {
        out.transposed = true;
        out.rowStride = colStep;
    } else {
        return std::nullopt;
    }
    return out;
}

}  // namespace

int fuseStridedOperands(TileProgram& program, const Graph& graph, const ArchConfig& config, const CostModel& model) {
    std::map<ValueId, int> readers = graph.readerCounts();
    std::set<ValueId> viewed;
    for (const auto& [view, storage] : program.views) viewed.insert(storage);
    const std::set<ValueId> outputs(graph.outputs.begin(), graph.outputs.end());
    const std::map<uint32_t, size_t> position = opPositions(program);
    int folds = 0;
    for (TileOp& op : program.ops) {
        auto* gemm = std::get_if<GemmTiles>(&op);
        if (!gemm) continue;
        GemmProblem& p = gemm->problem;
        for (GemmOperand* operand : {&p.a, &p.b}) {
            const Value& value = graph.value(operand->value);
            if (!operand->gather.empty() || operand->rowStride != 0 || value.producer < 0 || readers[operand->value] != 1 ||
                outputs.contains(operand->value) || viewed.contains(operand->value) || elementCount(value.shape) > kMaxMappedElements) {
                continue;
            }
            auto* copy = std::get_if<VectorTiles>(&program.ops[position.at(static_cast<uint32_t>(value.producer))]);
            if (!copy || copy->kernels.size() != 1 || !plainCopy(copy->kernels[0].problem, graph) ||
                copy->kernels[0].problem.stores[0].view.value != operand->value) {
                continue;
            }
            const VectorProblem& kernel = copy->kernels[0].problem;
            const bool isA = operand == &p.a;
            const std::optional<GemmOperand> folded =
                inPlace(*operand, isA ? p.m : p.k, isA ? p.k : p.n, kernel.loads[0].view.value, sourceOffsets(kernel));
            if (!folded || (folded->transposed && !config.dma.transpose)) continue;
            GemmProblem candidate = p;
            (isA ? candidate.a : candidate.b) = *folded;
            const std::optional<GemmSchedule> schedule = chooseGemmSchedule(candidate, config, model);
            CostEstimate apart = gemm->schedule.estimate;
            apart += copy->kernels[0].schedule.estimate;
            if (!schedule || model.score(schedule->estimate) >= model.score(apart)) continue;
            p = std::move(candidate);
            gemm->schedule = *schedule;
            copy->kernels.clear();
            copy->fusedInto = p.opId;
            ++folds;
        }
    }
    return folds;
}

}  // namespace npusim::compiler
