// The block pipeline the cost model runs blocks through: each block's time on the load DMA
// engine, the units and the store DMA engine, and how consecutive blocks overlap. Internal to
// compiler/cost.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "compiler/tile/cost_estimate.h"

namespace npusim::compiler {

inline double& feature(CostEstimate& e, CostFeature f) { return e.features[static_cast<size_t>(f)]; }

/// One block's time on each stage of the pipeline: the load DMA engine, the units, the store
/// DMA engine. A GEMM block's epilogue is vector work on its accumulator slot after the array's.
struct StageTimes {
    double loads = 0, compute = 0, stores = 0, epilogue = 0;
    /// The array's fill and drain after a block's compute, before its results can be read;
    /// the next block's compute overlaps it.
    double latency = 0;
    /// The first byte's latency of the block's loads and of its stores from DRAM: an engine
    /// overlaps it with the transfers before, so only a slot's turn and the pipeline's ends
    /// wait for it.
    double loadLatency = 0, storeLatency = 0;
    /// Of the loads' and stores' time, the DRAM transfers at full bandwidth, which the two
    /// engines share.
    double loadTransfer = 0, storeTransfer = 0;
    /// Whether a buffer is loaded and stored in place: its slot is then held from the block's
    /// loads through its stores, and the slot's next block cannot load before they end.
    bool inPlace = false;
};

/// Adds a pipeline of blocks to the estimate's Compute, Memory, Transfer and Exposed features. `runs`
/// are the blocks in order, each a block time and how many blocks in a row take it.
/// Double-buffered, block i computes while the load engine brings block i+1 and the store
/// engine writes block i-1, so each step takes the longest of the three, or of the two
/// engines' transfers together through DRAM; the first block's loads and the last one's
/// stores are exposed. Single-buffered, compute does not overlap the transfers.
///
/// An epilogue runs on the vector unit while the array computes the next block into the other
/// accumulator slot; a slot is free again once its block's stores end, so each slot's array,
/// fill and drain, epilogue and stores take turns: a step takes at least the longer unit and
/// half that chain, and the last block's drain and its array and epilogue, one after the
/// other, are exposed beyond its step. Single-buffered, the epilogue follows the array's drain
/// on the one slot.
void addPipeline(CostEstimate& e, const std::vector<std::pair<StageTimes, double>>& runs, bool doubleBuffered);

/// Blocks in place (StageTimes::inPlace) hold their slot from their loads to their stores, so
/// the blocks of one slot run one after another: a pipeline takes at least its busiest slot's
/// loads, compute and stores. Returns what that takes beyond `pipeline`, the time addPipeline
/// gave `runs`.
double slotChainExcess(const std::vector<std::pair<StageTimes, double>>& runs, bool doubleBuffered, double pipeline);

}  // namespace npusim::compiler
