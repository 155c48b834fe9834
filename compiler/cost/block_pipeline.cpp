// The block pipeline: steps of blocks through the DMA engines and the units.
#include "compiler/cost/block_pipeline.h"

#include <algorithm>
#include <cmath>

namespace npusim::compiler {
namespace {

/// Adds `count` memory-bound steps of `dma` cycles, of which `transfer` (at most) are DRAM
/// transfers at full bandwidth: the Transfer feature takes those, Memory the rest (command
/// latency, burst issue, the request window).
void addMemory(CostEstimate& e, double count, double dma, double transfer) {
    const double bandwidth = std::min(dma, transfer);
    feature(e, CostFeature::Transfer) += count * bandwidth;
    feature(e, CostFeature::Memory) += count * (dma - bandwidth);
}

}  // namespace

void addPipeline(CostEstimate& e, const std::vector<std::pair<StageTimes, double>>& runs, bool doubleBuffered) {
    // Steps as (block, how many in a row): a run of more than two blocks is its first block,
    // its middle ones (whose neighbours are blocks of the same time) and its last.
    std::vector<std::pair<const StageTimes*, double>> steps;
    for (const auto& [b, count] : runs) {
        if (count <= 0) continue;
        if (count > 2) {
            steps.insert(steps.end(), {{&b, 1.0}, {&b, count - 2}, {&b, 1.0}});
        } else {
            for (double i = 0; i < count; ++i) steps.push_back({&b, 1.0});
        }
    }
    if (!doubleBuffered) {
        // One slot: a block's loads wait for the previous block's compute, but overlap its
        // stores (the store engine drains the result while the load engine refills).
        for (size_t i = 0; i < steps.size(); ++i) {
            const StageTimes& b = *steps[i].first;
            const StageTimes* before = i > 0 ? steps[i - 1].first : nullptr;
            const double transfer = b.loadTransfer + (before ? before->storeTransfer : 0.0);
            const double dma = std::max({b.loadLatency + b.loads, before ? before->storeLatency + before->stores : 0.0, transfer});
            feature(e, CostFeature::Compute) += steps[i].second * (b.compute + b.latency + b.epilogue);
            addMemory(e, steps[i].second, dma, transfer);
        }
        if (!steps.empty()) feature(e, CostFeature::Exposed) += steps.back().first->storeLatency + steps.back().first->stores;
        return;
    }
    double blocks = 0;
    for (const auto& step : steps) blocks += step.second;
    // A block's array and epilogue units, and its slots' turns: an accumulator slot's compute,
    // drain, epilogue and stores (with an epilogue and a block after it, which overlaps it;
    // otherwise where blocks reuse the slot), and an operand slot's loads, compute and drain
    // (where blocks reuse it: the slot is free once the array's earlier work is complete).
    const auto units = [&](const StageTimes& b) {
        double unit = std::max(b.compute, b.epilogue);
        const double results = b.compute + b.latency + b.epilogue + b.stores;
        if (blocks > 1 && b.epilogue > 0) unit = std::max(unit, results / 2);
        if (blocks > 2) {
            const double operands = b.loadLatency + b.loads + b.compute + b.latency;
            unit = std::max({unit, operands / 2, (results + b.storeLatency) / 2});
        }
        return unit;
    };
    for (size_t i = 0; i < steps.size(); ++i) {
        const StageTimes& b = *steps[i].first;
        const double next = i + 1 < steps.size() ? steps[i + 1].first->loads : 0;
        const double before = i > 0 ? steps[i - 1].first->stores : 0;
        const double sharedDram = (i + 1 < steps.size() ? steps[i + 1].first->loadTransfer : 0) +
                                  (i > 0 ? steps[i - 1].first->storeTransfer : 0);
        const double dma = std::max({next, before, sharedDram});
        if (units(b) >= dma) {
            feature(e, CostFeature::Compute) += steps[i].second * units(b);
        } else {
            addMemory(e, steps[i].second, dma, sharedDram);
        }
    }
    if (steps.empty()) return;
    const StageTimes& last = *steps.back().first;
    const StageTimes& first = *steps.front().first;
    feature(e, CostFeature::Exposed) += first.loadLatency + first.loads + last.latency + last.storeLatency + last.stores +
                                        std::max(0.0, last.compute + last.epilogue - units(last));
}

double slotChainExcess(const std::vector<std::pair<StageTimes, double>>& runs, bool doubleBuffered, double pipeline) {
    double blocks = 0, chains = 0;
    for (const auto& [b, count] : runs) {
        if (count <= 0 || !b.inPlace) continue;
        blocks += count;
        chains += count * (b.loadLatency + b.loads + b.compute + b.epilogue + b.storeLatency + b.stores);
    }
    if (blocks == 0) return 0;
    const double busiest = chains * std::ceil(blocks / (doubleBuffered ? 2 : 1)) / blocks;
    return std::max(0.0, busiest - pipeline);
}

}  // namespace npusim::compiler
