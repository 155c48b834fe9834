// The mapping report: where each op of the compiled graph runs and why, or why it cannot run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/error.h"
#include "compiler/graph/graph.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

struct OpMapping {
    uint32_t opId = 0;
    std::string name, type;
    /// "tensor unit", "vector unit", "DMA" (data movement only), "host CPU" (a CPU segment),
    /// "none" (no work), or "unsupported" (neither the NPU nor the CPU path runs it).
    std::string target;
    /// How: "3 kernels", "fused into @x", "a view of %y", or the reason it cannot run.
    std::string detail;
    /// The types it computes in: a GEMM's operands ("bf16"), a Cast's "fp32 -> bf16", else its
    /// result's type; empty when not known (an op that did not import).
    std::string precision;
};

/// The mapping of one lowered op.
OpMapping mapOp(const Graph& graph, const TileProgram& program, const TileOp& op);
/// The mapping of every op of a lowered program.
std::vector<OpMapping> mapProgram(const Graph& graph, const TileProgram& program);
/// A table, one op per line.
std::string printMapping(const std::vector<OpMapping>& mapping);

/// Thrown when ops of the graph cannot run on the NPU: what() locates the first one and counts
/// the others; `mapping` holds every op, the unsupported ones with their reasons.
class MappingError : public InputError {
public:
    MappingError(const std::string& message, std::vector<OpMapping> mapping)
        : InputError(message), mapping(std::move(mapping)) {}
    std::vector<OpMapping> mapping;
};

}  // namespace npusim::compiler
