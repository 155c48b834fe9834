// generateSegments: the ops of each NPU segment through one sync planner, so dependencies
// between ops (a result in DRAM read by the next op, on-chip buffers reused) are ordered like
// any other. A segment boundary is a job boundary: the next job starts after this one ends.
#include "compiler/target/codegen.h"

#include <stdexcept>

#include "compiler/target/command_builder.h"
#include "compiler/target/op_codegen.h"

namespace npusim::compiler {

std::vector<CodeSegment> generateSegments(const TileProgram& program, const MemoryPlan& plan,
                                          const ArchConfig& config) {
    // On-chip buffers overlap other ops' buffers where they share addresses, DRAM tensors
    // other tensors whose lifetimes the memory plan let them share DRAM with.
    const auto placement = [&plan](uint32_t resource) -> std::optional<ResourceExtent> {
        if (resource >= plan.buffers.size()) {
            const TensorHome& tensor = plan.tensor(static_cast<ValueId>(resource - plan.buffers.size()));
            return ResourceExtent{AddressSpace::Dram, tensor.offset, tensor.offset + tensor.bytes};
        }
        const OnchipBuffer& buffer = plan.buffers[resource];
        return ResourceExtent{buffer.space, buffer.offset, buffer.offset + buffer.bytes};
    };
    std::vector<CodeSegment> segments;
    std::optional<SyncPlanner> planner;
    CodeSegment npu;
    // A phase's weights go with the first segment that issues something from its start on.
    std::vector<StreamedWeight> uploads;
    auto phase = plan.weightPhases.begin();
    const auto closeNpuSegment = [&] {
        if (planner && !planner->empty()) {
            npu.commands = planner->finish();
            segments.push_back(std::move(npu));
        } else {
            uploads.insert(uploads.begin(), npu.uploads.begin(), npu.uploads.end());
        }
        npu = {};
        planner.reset();
    };
    for (int position = 0; position < static_cast<int>(program.ops.size()); ++position) {
        const TileOp& op = program.ops[static_cast<size_t>(position)];
        if (phase != plan.weightPhases.end() && phase->firstOp == position) {
            closeNpuSegment();
            uploads.insert(uploads.end(), phase->uploads.begin(), phase->uploads.end());
            ++phase;
        }
        if (const auto* host = std::get_if<HostTiles>(&op)) {
            closeNpuSegment();
            segments.push_back({host->opId, {}, {host->opId}, 0, std::move(uploads)});
            uploads.clear();
            continue;
        }
        if (!planner) {
            planner.emplace(config.semaphores, placement);
            npu.uploads = std::move(uploads);
            uploads.clear();
        }
        npu.opIds.push_back(tileOpId(op));
        if (const auto* gemm = std::get_if<GemmTiles>(&op)) {
            emitGemm(*gemm, plan, config, *planner);
        } else {
            emitVector(std::get<VectorTiles>(op), plan, config, *planner);
        }
    }
    closeNpuSegment();
    if (!uploads.empty()) throw std::logic_error("generateSegments: weights are streamed to no segment");
    if (segments.empty()) {  // nothing to compute still runs a job: it ends at once
        segments.push_back({std::nullopt, SyncPlanner(config.semaphores, placement).finish(), {}, 0, {}});
    }
    return segments;
}

std::vector<isa::Command> generateCommands(const TileProgram& program, const MemoryPlan& plan,
                                           const ArchConfig& config) {
    const std::vector<CodeSegment> segments = generateSegments(program, plan, config);
    if (segments.size() > 1 || segments[0].hostOp) {
        throw std::logic_error("generateCommands: the program has CPU segments");
    }
    return segments[0].commands;
}

}  // namespace npusim::compiler
