// The cost model's view of a schedule, shared by every tile op.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace npusim::compiler {

/// The terms an estimate's total is a weighted sum of (CostParams weighs them).
enum class CostFeature : uint8_t {
    Compute,   ///< pipeline time where the units' work is the longer side
    Memory,    ///< pipeline time where the DMA commands (latency, burst issue) are the longer side
    Transfer,  ///< pipeline time where the DRAM transfers at full bandwidth are the longer side
    Exposed,   ///< the first loads and last stores no compute hides
    Dispatch,  ///< the control core's fetch and validation of the op's commands
    Blocks,    ///< the number of blocks (each a synchronisation round)
    Op,        ///< 1: a fixed cost per op
};
inline constexpr size_t kCostFeatures = 7;

struct CostEstimate {
    double tensorCycles = 0, vectorCycles = 0, dmaCycles = 0, overheadCycles = 0;
    double totalCycles = 0;
    uint64_t dramBytes = 0, commands = 0;
    std::array<double, kCostFeatures> features{};
    /// Dynamic energy of the schedule's work at the arch config's energy per action, pJ
    /// (CostModel::energyPj).
    double energyPj = 0;

    /// Adds `other`'s work, run after this one's: every figure summed.
    CostEstimate& operator+=(const CostEstimate& other) {
        tensorCycles += other.tensorCycles;
        vectorCycles += other.vectorCycles;
        dmaCycles += other.dmaCycles;
        overheadCycles += other.overheadCycles;
        totalCycles += other.totalCycles;
        dramBytes += other.dramBytes;
        commands += other.commands;
        for (size_t i = 0; i < kCostFeatures; ++i) features[i] += other.features[i];
        energyPj += other.energyPj;
        return *this;
    }
};

}  // namespace npusim::compiler
