// Mapping report entries from the tile IR.
#include "compiler/tiling/mapping.h"

#include <algorithm>
#include <cstdio>

#include "compiler/graph/op_table.h"

namespace npusim::compiler {

OpMapping mapOp(const Graph& graph, const TileProgram& program, const TileOp& op) {
    const uint32_t opId = tileOpId(op);
    const Node& node = graph.nodes.at(opId);
    OpMapping m{opId, node.name, std::string(opInfo(node.kind).name), "", "", ""};
    const DType result = graph.value(node.outputs.at(0)).dtype;
    m.precision = node.kind == OpKind::Cast ? std::string(dtypeName(graph.value(node.inputs.at(0)).dtype)) + " -> " +
                                                  std::string(dtypeName(result))
                                            : std::string(dtypeName(result));
    if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
        const GemmProblem& p = gemm->problem;
        m.precision = dtypeName(p.operandType);
        m.target = "tensor unit";
        m.detail = std::to_string(p.batch) + " x " + std::to_string(p.m) + "x" + std::to_string(p.k) + "x" +
                   std::to_string(p.n) + " " + std::string(dtypeName(p.operandType)) + " GEMM";
        if (!p.b.gather.empty()) m.detail += ", B gathered on chip";
        if (!p.epilogue.empty()) {
            m.detail += ", epilogue ";
            for (size_t i = 0; i < p.epilogue.size(); ++i) {
                if (i > 0) m.detail += '+';
                m.detail += isa::vectorOpName(p.epilogue[i].op);
            }
        }
        return m;
    }
    if (const auto* host = std::get_if<HostTiles>(&op)) {
        m.target = "host CPU";
        m.detail = "JIT kernel of " + std::to_string(cpu::operationCount(host->host.kernel)) + " operations (" +
                   host->reason + ")";
        return m;
    }
    const auto& vector = std::get<VectorTiles>(op);
    if (vector.kernels.empty()) {
        m.target = "none";
        if (vector.fusedInto) {
            m.detail = "fused into @" + graph.nodes.at(*vector.fusedInto).name;
        } else if (const auto view = program.views.find(node.outputs.at(0)); view != program.views.end()) {
            m.detail = "a view of %" + graph.value(view->second).name + " (no data moves)";
        } else {
            m.detail = "empty result";
        }
        return m;
    }
    const bool computes = std::any_of(vector.kernels.begin(), vector.kernels.end(),
                                      [](const VectorKernel& k) { return !k.problem.steps.empty(); });
    m.target = computes ? "vector unit" : "DMA";
    m.detail = std::to_string(vector.kernels.size()) + (vector.kernels.size() == 1 ? " kernel" : " kernels");
    if (vector.kernels.size() == 1) m.detail += " (" + vector.kernels[0].problem.name + ")";
    return m;
}

std::vector<OpMapping> mapProgram(const Graph& graph, const TileProgram& program) {
    std::vector<OpMapping> mapping;
    for (const TileOp& op : program.ops) mapping.push_back(mapOp(graph, program, op));
    return mapping;
}

std::string printMapping(const std::vector<OpMapping>& mapping) {
    size_t nameWidth = 2, typeWidth = 4, precisionWidth = 9;
    for (const OpMapping& m : mapping) {
        nameWidth = std::max(nameWidth, m.name.size());
        typeWidth = std::max(typeWidth, m.type.size());
        precisionWidth = std::max(precisionWidth, m.precision.size());
    }
    std::string text;
    auto line = [&](const std::string& name, const std::string& type, const std::string& precision,
                    const std::string& target, const std::string& detail) {
        text += name + std::string(nameWidth + 2 - name.size(), ' ') + type + std::string(typeWidth + 2 - type.size(), ' ') +
                precision + std::string(precisionWidth + 2 - precision.size(), ' ') + target +
                std::string(target.size() < 13 ? 13 - target.size() : 1, ' ') + detail + "\n";
    };
    line("op", "type", "precision", "runs on", "how");
    for (const OpMapping& m : mapping) line(m.name, m.type, m.precision.empty() ? "-" : m.precision, m.target, m.detail);
    return text;
}

}  // namespace npusim::compiler
