// Cost-model calibration: run the microbenchmark suite on the simulator (each op with several
// of its tile candidates), fit the cost model's weights to the simulated cycles by least
// squares on a training split, and score estimates against the simulator on the held-out
// split: mean absolute percentage error, max error, and Kendall's tau between the estimated
// and simulated rankings of each op's tile candidates.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "arch/arch_config.h"
#include "compiler/cost/cost_model.h"
#include "compiler/tile/tile_ir.h"
#include "cli/calibrate/microbenchmarks.h"

namespace npusim::cli {

/// One op of one compiled candidate: its problem and schedule, and its simulated cycles.
struct CalibrationSample {
    std::string bench, op;
    size_t problem = 0;  ///< samples of one problem are candidates of one op: their ranking is scored
    std::shared_ptr<const compiler::TileOp> tiles;
    std::set<compiler::ValueId> resident;  ///< the intermediates its compilation keeps in SRAM
    double simulated = 0;  ///< the op's cycles in the simulator (first command to last)
    double simulatedEnergy = 0;  ///< the op's dynamic energy in the simulator's report, pJ
    bool heldOut = false;
};

/// The sample's estimate features under `params`' DMA timing.
std::array<double, compiler::kCostFeatures> estimateFeatures(const CalibrationSample& sample, const ArchConfig& config,
                                                              const compiler::CostParams& params);

struct CalibrationScore {
    double mape = 0;      ///< mean |estimate - simulated| / simulated
    double maxError = 0;  ///< the largest such error
    double tau = 0;       ///< Kendall's tau-b per problem with two or more candidates, averaged
    size_t samples = 0, rankings = 0;
    /// The energy estimate's mean and largest |estimate - simulated| / simulated.
    double energyMape = 0, energyMaxError = 0;
};

/// Compiles the suite (up to `candidates` tile candidates per op, spread over the estimate's
/// range), simulates every artifact timing-only in one child process and returns the samples,
/// every third problem held out. `progress` gets a line per stage.
std::vector<CalibrationSample> measureSuite(const ArchConfig& config, const std::vector<Microbenchmark>& suite,
                                            size_t candidates, const std::function<void(const std::string&)>& progress);

/// The sample's estimate under `params`.
double estimateCycles(const CalibrationSample& sample, const ArchConfig& config, const compiler::CostParams& params);
/// The sample's energy estimate under `params`, pJ.
double estimateEnergy(const CalibrationSample& sample, const ArchConfig& config, const compiler::CostParams& params);

/// The parameters minimising the absolute relative error of the training samples' estimates:
/// for each DMA timing tried (a search over the bandwidth fraction and the cycles per burst),
/// the feature weights by iteratively reweighted least squares; the best pair wins. The energy
/// scale minimises the training samples' absolute relative energy error.
compiler::CostParams fitCostParams(const std::vector<CalibrationSample>& samples, const ArchConfig& config);

/// The score of `params` on the samples with heldOut == `heldOut`.
CalibrationScore scoreCostParams(const std::vector<CalibrationSample>& samples, const ArchConfig& config,
                                 const compiler::CostParams& params, bool heldOut);

}  // namespace npusim::cli
