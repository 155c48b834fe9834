// Per-op code generators, called by generateSegments in program order. Internal.
#pragma once

#include "arch/arch_config.h"
#include "compiler/memory/memory_ir.h"
#include "compiler/target/sync_planner.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

void emitGemm(const GemmTiles& tiles, const MemoryPlan& plan, const ArchConfig& config,
              SyncPlanner& out);
void emitVector(const VectorTiles& tiles, const MemoryPlan& plan, const ArchConfig& config, SyncPlanner& out);

}  // namespace npusim::compiler
