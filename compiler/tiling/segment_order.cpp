// The greedy list scheduler behind orderForSegments.
#include "compiler/tiling/segment_order.h"

#include <map>
#include <set>

namespace npusim::compiler {
namespace {

enum class Side : uint8_t { Npu, Host, Either };

Side sideOf(const TileOp& op) {
    if (std::holds_alternative<HostTiles>(op)) return Side::Host;
    if (const auto* vector = std::get_if<VectorTiles>(&op); vector && vector->kernels.empty()) return Side::Either;
    return Side::Npu;
}

}  // namespace

void orderForSegments(TileProgram& program, const Graph& graph) {
    const size_t count = program.ops.size();
    const std::map<uint32_t, size_t> position = opPositions(program);
    // Each op waits for the ops whose results it reads.
    std::vector<std::set<size_t>> waitsFor(count);
    std::vector<std::vector<size_t>> readers(count);
    for (size_t i = 0; i < count; ++i) {
        std::vector<ValueId> reads = graph.nodes.at(tileOpId(program.ops[i])).inputs;
        // A GEMM also reads the residual a fused Add gave it.
        if (const auto* gemm = std::get_if<GemmTiles>(&program.ops[i])) reads.push_back(gemm->problem.residual);
        for (ValueId id : reads) {
            if (id == kNoValue || graph.value(id).producer < 0) continue;
            const size_t producer = position.at(static_cast<uint32_t>(graph.value(id).producer));
            if (waitsFor[i].insert(producer).second) readers[producer].push_back(i);
        }
    }
    std::set<size_t> ready;
    for (size_t i = 0; i < count; ++i) {
        if (waitsFor[i].empty()) ready.insert(i);
    }
    std::vector<size_t> order;
    Side current = Side::Npu;
    while (!ready.empty()) {
        auto pick = ready.end();
        for (auto it = ready.begin(); it != ready.end(); ++it) {
            const Side side = sideOf(program.ops[*it]);
            if (side == current || side == Side::Either) {
                pick = it;
                break;
            }
        }
        if (pick == ready.end()) {  // nothing left on this side: switch
            pick = ready.begin();
            current = sideOf(program.ops[*pick]);
        }
        const size_t chosen = *pick;
        ready.erase(pick);
        order.push_back(chosen);
        for (size_t reader : readers[chosen]) {
            waitsFor[reader].erase(chosen);
            if (waitsFor[reader].empty()) ready.insert(reader);
        }
    }
    std::vector<TileOp> ordered;
    for (size_t i : order) ordered.push_back(std::move(program.ops[i]));
    program.ops = std::move(ordered);
}

}  // namespace npusim::compiler
