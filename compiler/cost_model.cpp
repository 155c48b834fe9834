// Cost model formulas. They mirror the hardware model's timing without simulating it:
// contention, bank conflicts and pipeline bubbles between commands are not modelled.
#include "compiler/cost_model.h"

#include <algorithm>
#include <cmath>

namespace npusim::compiler {
namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

double CostModel::systolicTileCycles(DType dtype, int64_t m, int64_t k) const {
    const double cyclesPerRow = config_.tensor.cyclesPerRow.at(dtype);
    return static_cast<double>(k) + static_cast<double>(m) * cyclesPerRow +
           (config_.tensor.rows - 1) + (config_.tensor.cols - 1);
}

double CostModel::dmaCycles(uint64_t rows, uint64_t rowBytes) const {
    const double burst = config_.dma.burstBytes;
    const double bursts = static_cast<double>(rows) * std::ceil(static_cast<double>(rowBytes) / burst);
    const double transfer = static_cast<double>(rows * rowBytes) / config_.dram.bytesPerCycle;
    const double window = bursts * config_.dram.latencyCycles / config_.dma.maxOutstanding;
    return config_.dram.latencyCycles + std::max({transfer, window, bursts});
}

double CostModel::vectorCycles(isa::VectorOp op, int64_t elements) const {
    return config_.vector.pipelineDepth +
           static_cast<double>(ceilDiv(elements, config_.vector.lanes)) *
               config_.vector.opCycles[static_cast<size_t>(op)];
}

double CostModel::commandOverheadCycles(uint64_t commands) const {
    const double fetch = static_cast<double>(commands * isa::kCommandBytes) / config_.dram.bytesPerCycle;
    return fetch + static_cast<double>(commands) * config_.controlCore.validateCycles;
}

CostEstimate CostModel::estimateGemm(const GemmProblem& p, const GemmSchedule& s) const {
    CostEstimate e;
    const int slots = s.doubleBuffer ? 2 : 1;
    SlotCache aSlots(slots), bSlots(slots);
    const uint64_t elem = dtypeSize(p.operandType);
    const int64_t rows = config_.tensor.rows, cols = config_.tensor.cols;
    double firstLoad = -1, lastStore = 0;
    forEachGemmBlock(p, s, [&](const GemmBlock& block) {
        double loads = 0;
        if (aSlots.use(gemmKeyA(p, block)).load) {
            const uint64_t bytes = static_cast<uint64_t>(block.m * block.k) * elem;
            loads += p.a.transposed ? dmaCycles(block.k, block.m * elem) : dmaCycles(block.m, block.k * elem);
            e.dramBytes += bytes;
            ++e.commands;
        }
        if (bSlots.use(gemmKeyB(p, block)).load) {
            const uint64_t bytes = static_cast<uint64_t>(block.k * block.n) * elem;
            loads += p.b.transposed ? dmaCycles(block.n, block.k * elem) : dmaCycles(block.k, block.n * elem);
            e.dramBytes += bytes;
            ++e.commands;
        }
        if (firstLoad < 0) firstLoad = loads;
        e.dmaCycles += loads;
        for (int64_t k0 = 0; k0 < block.k; k0 += rows) {
            const int64_t kTile = std::min(rows, block.k - k0);
            e.tensorCycles += static_cast<double>(ceilDiv(block.n, cols)) *
                              systolicTileCycles(p.operandType, block.m, kTile);
            e.commands += static_cast<uint64_t>(ceilDiv(block.n, cols));
        }
        if (block.lastK) {
            const int64_t elements = block.m * block.n;
            if (p.alpha != 1.0f) {
                e.vectorCycles += vectorCycles(isa::VectorOp::Mul, elements);
                ++e.commands;
            }
            if (p.bias != kNoValue) {
                e.vectorCycles += vectorCycles(isa::VectorOp::Add, elements);
                const BiasExtent bias = gemmBiasExtent(p, block);
                e.dmaCycles += dmaCycles(static_cast<uint64_t>(bias.rows),
                                         static_cast<uint64_t>(bias.rowElements) * 4);
                e.dramBytes += static_cast<uint64_t>(bias.rows * bias.rowElements) * 4;
                e.commands += 2;
            }
            const uint64_t bytes = static_cast<uint64_t>(elements) * 4;
            lastStore = dmaCycles(static_cast<uint64_t>(block.m), static_cast<uint64_t>(block.n) * 4);
            e.dmaCycles += lastStore;
            e.dramBytes += bytes;
            ++e.commands;
        }
    });
    // Loads, compute and stores overlap when buffers are doubled; the first load and the
    // last store do not.
    const double steady = s.doubleBuffer ? std::max({e.tensorCycles, e.vectorCycles, e.dmaCycles})
                                         : e.tensorCycles + e.vectorCycles + e.dmaCycles;
    e.commands += e.commands / 2;  // semaphore commands, about one per two others
    e.overheadCycles = commandOverheadCycles(e.commands);
    e.totalCycles = steady + e.overheadCycles + (s.doubleBuffer ? firstLoad + lastStore : 0);
    return e;
}

CostEstimate CostModel::estimateElementwise(const ElementwiseProblem& p,
                                            const ElementwiseSchedule& s) const {
    CostEstimate e;
    const int64_t blockElements = s.width * s.blockRows;
    const uint64_t elem = dtypeSize(p.dtype);
    double blockDma = 0;
    for (int64_t start = 0; start < p.elements; start += blockElements) {
        const int64_t elements = std::min(blockElements, p.elements - start);
        const auto bytes = static_cast<uint64_t>(elements) * elem;
        blockDma = 2 * dmaCycles(1, bytes);
        e.dmaCycles += blockDma;
        e.vectorCycles += vectorCycles(p.op, elements);
        e.dramBytes += 2 * bytes;
        e.commands += 3 + (elements % s.width != 0 && elements > s.width ? 3 : 0);
    }
    e.commands += e.commands / 2;
    e.overheadCycles = commandOverheadCycles(e.commands);
    const double steady = s.doubleBuffer ? std::max(e.vectorCycles, e.dmaCycles) : e.vectorCycles + e.dmaCycles;
    e.totalCycles = steady + e.overheadCycles + (s.doubleBuffer ? blockDma : 0);
    return e;
}

}  // namespace npusim::compiler
