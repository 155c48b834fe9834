// The tile pass list, one pass per file (fusion.h, segment_order.h).
#include "compiler/tiling/tile_pass.h"

#include <algorithm>
#include <array>
#include <variant>

#include "compiler/tiling/constant_packing.h"
#include "compiler/tiling/fusion.h"
#include "compiler/tiling/segment_order.h"

namespace npusim::compiler {
namespace {

bool fusing(const TileProgram&, const TileContext& context) { return context.fusion; }

bool always(const TileProgram&, const TileContext&) { return true; }

bool hasHostOps(const TileProgram& program, const TileContext&) {
    return std::any_of(program.ops.begin(), program.ops.end(), [](const TileOp& op) { return std::holds_alternative<HostTiles>(op); });
}

}  // namespace

std::span<const TilePass> tilePasses() {
    static constexpr std::array<TilePass, 6> kPasses = {{
        {"fuse-strided-operands", "a copy (Transpose, Slice) read only by a GEMM operand: the GEMM reads the copy's input in place, strided",
         fusing, [](TileProgram& p, const TileContext& c) { fuseStridedOperands(p, c.graph, c.config, c.costModel); }},
        {"fuse-gathered-operands", "an Im2Col read only by a GEMM's B operand: the GEMM gathers its B blocks from the Im2Col's input",
         fusing,
         [](TileProgram& p, const TileContext& c) { fuseGatheredOperands(p, c.graph, c.config, c.costModel); }},
        {"fuse-gemm-epilogues", "an elementwise chain (after a bias, which the GEMM adds) that alone reads a GEMM's result runs on its blocks in the accumulator",
         fusing, [](TileProgram& p, const TileContext& c) { fuseGemmEpilogues(p, c.graph, c.config, c.costModel); }},
        {"fuse-vector-kernels", "a vector kernel whose only reader walks the same index space merges into that reader",
         fusing,
         [](TileProgram& p, const TileContext& c) { fuseVectorKernels(p, c.graph, c.config, c.costModel); }},
        {"pack-constant-operands", "a constant only GEMMs read, all in blocks of one width, is stored in bands of that width: each block one DRAM run",
         always, [](TileProgram& p, const TileContext& c) { packConstantOperands(p, c.graph, c.costModel); }},
        {"order-for-segments", "NPU and CPU ops reordered (dependencies kept) into as few segments as can be",
         hasHostOps, [](TileProgram& p, const TileContext& c) { orderForSegments(p, c.graph); }},
    }};
    return kPasses;
}

}  // namespace npusim::compiler
