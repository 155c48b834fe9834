// Reached bytes and unit bounds of a tile op.
#include "compiler/tile/unit_bounds.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

#include "arch/tile_timing.h"
#include "compiler/tile/footprint.h"

namespace npusim::compiler {
namespace {

uint64_t total(const std::map<ValueId, uint64_t>& bytes) {
    uint64_t sum = 0;
    for (const auto& [id, b] : bytes) sum += b;
    return sum;
}

/// Cycles the vector unit needs for `elements` elements of `op` at full rate.
uint64_t vectorCycles(const VectorUnitConfig& vector, isa::VectorOp op, int64_t elements) {
    const auto groups = (static_cast<uint64_t>(elements) + vector.lanes - 1) / vector.lanes;
    return groups * vector.opCycles[static_cast<size_t>(op)];
}

/// The elements one step computes over the whole problem: a row operand's step is done
/// at least once, a column's once per row, a block's once per element.
int64_t stepElements(const VectorProblem& p, const VectorStep& step) {
    switch (p.buffers[step.src0].extent) {
        case BufferExtent::Row: return p.cols();
        case BufferExtent::Column: return p.rows();
        case BufferExtent::Block: break;
    }
    return p.rows() * p.cols();
}

}  // namespace

std::map<ValueId, uint64_t> ReachedBytes::either(const Graph& graph) const {
    std::map<ValueId, uint64_t> bytes = read;
    for (const auto& [id, b] : written) bytes[id] = std::min(valueBytes(graph.value(id)), bytes[id] + b);
    return bytes;
}

ReachedBytes reachedBytes(const Graph& graph, const TileOp& op) {
    ReachedBytes reached;
    if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
        for (ValueId id : accessedValues(op)) {
            (id == gemm->problem.output ? reached.written : reached.read)[id] = valueBytes(graph.value(id));
        }
        return reached;
    }
    if (const auto* host = std::get_if<HostTiles>(&op)) {
        for (ValueId id : host->host.inputs) reached.read[id] = valueBytes(graph.value(id));
        for (ValueId id : host->host.outputs) reached.written[id] = valueBytes(graph.value(id));
        return reached;
    }
    std::set<std::tuple<bool, ValueId, int64_t, std::vector<int64_t>>> seen;
    for (const VectorKernel& kernel : std::get<VectorTiles>(op).kernels) {
        // An indexed load reaches a row of its table per index: its view varies along the
        // list's dims too.
        const auto reach = [&](const TensorView& view, bool store, const std::optional<PlaneLayout>& plane,
                               const TensorView* list = nullptr) {
            if (view.value == kNoValue || !seen.emplace(store, view.value, view.offset, view.strides).second) return;
            uint64_t elements = 1;
            for (size_t d = 0; d < kernel.problem.dims.size() && d < view.strides.size(); ++d) {
                if (view.strides[d] != 0 || (list && list->strides[d] != 0)) {
                    elements *= static_cast<uint64_t>(kernel.problem.dims[d]);
                }
            }
            if (plane) elements *= static_cast<uint64_t>(elementCount(plane->extents));
            const Value& value = graph.value(view.value);
            uint64_t& bytes = (store ? reached.written : reached.read)[view.value];
            bytes = std::min(valueBytes(value), bytes + elements * dtypeSize(value.dtype));
        };
        for (const VectorLoad& load : kernel.problem.loads) {
            if (load.indices) {
                reach(load.view, false, std::nullopt, &load.indices->list);
                reach(load.indices->list, false, std::nullopt);
            } else {
                reach(load.view, false, load.plane);
            }
        }
        for (const VectorStore& store : kernel.problem.stores) reach(store.view, true, std::nullopt);
    }
    return reached;
}

UnitBounds unitBounds(const TileOp& op, const ReachedBytes& reached, const ArchConfig& config) {
    if (std::holds_alternative<HostTiles>(op)) return {};
    UnitBounds bounds;
    if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
        const GemmProblem& p = gemm->problem;
        bounds.array = gemmArrayCycles(config.tensor, p.operandType, static_cast<uint64_t>(p.batch),
                                       static_cast<uint64_t>(p.m), static_cast<uint64_t>(p.k), static_cast<uint64_t>(p.n));
        for (const EpilogueStep& step : p.epilogue) bounds.vector += vectorCycles(config.vector, step.op, p.batch * p.m * p.n);
    } else {
        for (const VectorKernel& kernel : std::get<VectorTiles>(op).kernels) {
            for (const VectorStep& step : kernel.problem.steps) {
                bounds.vector += vectorCycles(config.vector, step.op, stepElements(kernel.problem, step));
            }
        }
    }
    // A DMA engine issues at most a burst per channel and cycle.
    const uint64_t peak = uint64_t{config.dma.channels} * config.dma.burstBytes;
    const auto cycles = [&](uint64_t bytes) { return (bytes + peak - 1) / peak; };
    bounds.load = cycles(total(reached.read));
    bounds.store = cycles(total(reached.written));
    return bounds;
}

}  // namespace npusim::compiler
