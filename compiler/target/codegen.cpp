// generateCommands: every op's commands through one sync planner, so dependencies between ops
// (a result in DRAM read by the next op, on-chip buffers reused) are ordered like any other.
#include "compiler/target/codegen.h"

#include "compiler/target/command_builder.h"
#include "compiler/target/op_codegen.h"

namespace npusim::compiler {

std::vector<isa::Command> generateCommands(const TileProgram& program, const MemoryPlan& plan,
                                           const ArchConfig& config) {
    // DRAM tensors never overlap; on-chip buffers overlap other ops' buffers.
    std::vector<std::vector<uint32_t>> aliases;
    for (const OnchipBuffer& buffer : plan.buffers) aliases.push_back(plan.overlapping(buffer.id));
    SyncPlanner planner(config.semaphores, [aliases = std::move(aliases)](uint32_t resource) {
        return resource < aliases.size() ? aliases[resource] : std::vector<uint32_t>{};
    });
    for (const TileOp& op : program.ops) {
        if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
            emitGemm(*gemm, plan, config, planner);
        } else {
            emitVector(std::get<VectorTiles>(op), plan, planner);
        }
    }
    return planner.finish();
}

}  // namespace npusim::compiler
