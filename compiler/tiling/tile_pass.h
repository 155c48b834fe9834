// The passes over the tile IR, registered like the graph passes: name (as --dump-ir files and
// `npusim opt --pass` call them), what they do, when they apply and the function. The pipeline
// runs them in this order after lowering to tiles.
#pragma once

#include <span>
#include <string_view>

#include "arch/arch_config.h"
#include "compiler/cost/cost_model.h"
#include "compiler/graph/graph.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// What a tile pass reads besides the program it rewrites.
struct TileContext {
    const Graph& graph;
    const ArchConfig& config;
    const CostModel& costModel;
    bool fusion = true;  ///< CompileOptions::fusion: the fusions run
};

struct TilePass {
    std::string_view name;
    std::string_view summary;
    /// Whether the pass has anything to do: when not, it neither runs nor dumps its IR.
    bool (*applies)(const TileProgram& program, const TileContext& context);
    void (*run)(TileProgram& program, const TileContext& context);
};

/// Every tile pass, in pipeline order.
std::span<const TilePass> tilePasses();

}  // namespace npusim::compiler
