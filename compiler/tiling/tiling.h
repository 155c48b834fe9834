// Lowering graph IR to tile IR: each op becomes a problem (its math, normalised for the NPU)
// and a schedule picked by searching candidates with the cost model.
#pragma once

#include <optional>
#include <vector>

#include "arch/arch_config.h"
#include "compiler/cost/cost_model.h"
#include "compiler/graph/graph.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// Schedules the caller fixes instead of the search's picks (calibration runs chosen tile
/// candidates): for every GEMM op, for every vector kernel. Each must be one of the
/// candidates (it fits on chip).
struct FixedSchedules {
    std::optional<GemmSchedule> gemm;
    std::optional<VectorSchedule> vector;
};

/// Throws MappingError (an InputError located at the first op the NPU cannot run, with the
/// mapping of every op) when the NPU cannot run some op of the graph.
TileProgram lowerToTiles(const Graph& graph, const ArchConfig& config, const CostModel& model,
                         const FixedSchedules& fixed = {});

/// The normalised GEMM of a MatMul, Gemm or MatMulInteger node.
GemmProblem gemmProblemFor(const Graph& graph, const Node& node, uint32_t opId,
                           const ArchConfig& config);
/// The cheapest schedule that fits on chip; nullopt when none does.
std::optional<GemmSchedule> chooseGemmSchedule(const GemmProblem& problem,
                                               const ArchConfig& config, const CostModel& model);
/// As chooseGemmSchedule, keeping `base`'s m blocks: the search for problems whose estimate
/// is dear to compute (a gathered operand's).
std::optional<GemmSchedule> chooseGemmColumns(const GemmProblem& problem, const GemmSchedule& base,
                                              const ArchConfig& config, const CostModel& model);
std::optional<VectorSchedule> chooseVectorSchedule(const VectorProblem& problem, const ArchConfig& config,
                                                  const CostModel& model);
/// Every schedule the searches consider (that fits on chip), each with its estimate.
std::vector<GemmSchedule> gemmCandidates(const GemmProblem& problem, const ArchConfig& config, const CostModel& model);
std::vector<VectorSchedule> vectorCandidates(const VectorProblem& problem, const ArchConfig& config,
                                             const CostModel& model);

}  // namespace npusim::compiler
