// Lowering of the ops the vector unit runs (everything but GEMMs) to vector problems, one
// file per op family. Internal to compiler/tile.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/tile/vector_builder.h"

namespace npusim::compiler {

/// Rows longer than this are split: a vector command's row stays within the ISA's fields and
/// a block keeps several rows to pipeline.
inline constexpr int64_t kMaxVectorCols = 4096;

/// The kernels of a non-GEMM op, unscheduled. Throws VectorUnsupported when the vector unit
/// cannot run it, InputError (located) when the op itself is malformed.
std::vector<VectorProblem> vectorProblemsFor(const Graph& graph, const Node& node, uint32_t opId);

/// Computes an elementwise result from its inputs' buffers (or immediates).
using ElementwiseBody = std::function<uint32_t(VectorBuilder&, std::span<const Operand>)>;

/// An elementwise kernel: the output's index space with every input broadcast to it,
/// simplified; single-element fp32 constants become immediates.
VectorProblem elementwiseProblem(const Graph& graph, uint32_t opId, std::string name,
                                 std::span<const ValueId> inputs, ValueId output, const ElementwiseBody& body);

/// The elementwise ops (arithmetic, activations, casts); empty when `node` is not one.
std::vector<VectorProblem> elementwiseProblemsFor(const Graph& graph, const Node& node, uint32_t opId);

}  // namespace npusim::compiler
