// lowerToTiles: one tile op per graph op, in graph order.
#include "compiler/tile/tiling.h"

#include "compiler/graph/op_table.h"

namespace npusim::compiler {
namespace {

std::string kib(uint64_t bytes) { return std::to_string(bytes / 1024) + " KiB"; }

TileOp lowerGemm(const Graph& graph, const Node& node, uint32_t opId, const ArchConfig& config,
                 const CostModel& model) {
    GemmTiles tiles{gemmProblemFor(graph, node, opId, config), {}};
    const std::optional<GemmSchedule> schedule = chooseGemmSchedule(tiles.problem, config, model);
    if (!schedule) {
        opError(node, "no tiling of this GEMM fits " + kib(config.sram.sizeBytes) + " SRAM and " +
                          kib(config.accumulator.sizeBytes) + " accumulator memory");
    }
    tiles.schedule = *schedule;
    return tiles;
}

TileOp lowerRelu(const Graph& graph, const Node& node, uint32_t opId, const ArchConfig& config,
                 const CostModel& model) {
    const Value& input = graph.value(node.inputs.at(0));
    if (input.dtype != DType::Fp32 && input.dtype != DType::Int32) {
        opError(node, "the vector unit computes fp32 and int32, not " + std::string(dtypeName(input.dtype)));
    }
    ElementwiseTiles tiles;
    tiles.problem.opId = opId;
    tiles.problem.op = isa::VectorOp::Relu;
    tiles.problem.dtype = input.dtype;
    tiles.problem.elements = elementCount(input.shape);
    tiles.problem.input = node.inputs[0];
    tiles.problem.output = node.outputs.at(0);
    const std::optional<ElementwiseSchedule> schedule =
        chooseElementwiseSchedule(tiles.problem, config, model);
    if (!schedule) opError(node, "no tiling fits " + kib(config.sram.sizeBytes) + " SRAM");
    tiles.schedule = *schedule;
    return tiles;
}

}  // namespace

TileProgram lowerToTiles(const Graph& graph, const ArchConfig& config, const CostModel& model) {
    TileProgram program;
    for (size_t index = 0; index < graph.nodes.size(); ++index) {
        const Node& node = graph.nodes[index];
        const auto opId = static_cast<uint32_t>(index);
        for (ValueId id : node.outputs) {
            if (elementCount(graph.value(id).shape) == 0) {
                opError(node, "its result is empty; the NPU has nothing to compute");
            }
        }
        switch (node.kind) {
            case OpKind::MatMul:
            case OpKind::Gemm:
            case OpKind::MatMulInteger:
                program.ops.push_back(lowerGemm(graph, node, opId, config, model));
                break;
            case OpKind::Relu:
                program.ops.push_back(lowerRelu(graph, node, opId, config, model));
                break;
        }
    }
    return program;
}

}  // namespace npusim::compiler
