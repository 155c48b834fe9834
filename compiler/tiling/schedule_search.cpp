// Schedule search: enumerate block sizes, loop orders and buffering that fit on chip and
// within the ISA's field limits, score each with the cost model, keep the cheapest.
#include <algorithm>
#include <limits>

#include "arch/int_math.h"
#include "arch/tile_timing.h"
#include "compiler/tile/footprint.h"
#include "compiler/tile/gemm_gather.h"
#include "compiler/tiling/tiling.h"

namespace npusim::compiler {
namespace {

/// ISA limits: GEMM m/n/k and strides are 16-bit fields, DMA and vector rows too.
constexpr int64_t kMaxField16 = 65535;
/// Candidates with more blocks than this are skipped: their command streams would be huge.
constexpr int64_t kMaxBlocks = 1 << 16;

/// unit, 2*unit, 4*unit, ... below `extent`, then `extent` itself.
std::vector<int64_t> blockSizes(int64_t extent, int64_t unit) {
    std::vector<int64_t> sizes;
    for (int64_t size = std::min(unit, extent); size < extent; size *= 2) sizes.push_back(size);
    sizes.push_back(extent);
    return sizes;
}


/// By the model's objective, then cycles, then commands.
bool better(const CostModel& model, const CostEstimate& candidate, const CostEstimate& best) {
    if (const double a = model.score(candidate), b = model.score(best); a != b) return a < b;
    if (candidate.totalCycles != best.totalCycles) return candidate.totalCycles < best.totalCycles;
    return candidate.commands < best.commands;
}

/// Calls `visit` with every GEMM schedule of these k and m block sizes that fits on chip and
/// within the ISA's fields (estimate not yet filled).
template <class Visit>
void forEachGemmSchedule(const GemmProblem& p, const ArchConfig& config, std::vector<int64_t> kBlocks,
                         const std::vector<int64_t>& mBlocks, Visit visit) {
    // A gathered B also tries reduction blocks of whole row periods, whose fills stay in place.
    if (const int64_t period = gatherRowPeriod(p); period > 1) {
        const size_t sizes = kBlocks.size();
        for (size_t i = 0; i < sizes; ++i) {
            const int64_t aligned = kBlocks[i] / period * period;
            if (aligned >= period && aligned < p.k && std::find(kBlocks.begin(), kBlocks.end(), aligned) == kBlocks.end()) {
                kBlocks.push_back(aligned);
            }
        }
    }
    // A gathered B also tries blocks of whole image rows, whose padding fills stay in place.
    std::vector<int64_t> nBlocks = blockSizes(p.n, config.tensor.cols);
    const std::vector<int64_t> aligned = gatherAlignedBlocks(p, nBlocks, config.tensor.cols);
    nBlocks.insert(nBlocks.end(), aligned.begin(), aligned.end());
    // The transpose is tried where it fills the array clearly better (a GEMM whose N is small
    // and M large: at least a tenth fewer array cycles), first: the search then prunes more of
    // the other orientation's candidates.
    std::vector<bool> orientations = {false};
    const uint64_t asStored = orientedArrayCycles(config.tensor, p.operandType, p.m, p.k, p.n);
    if (orientedArrayCycles(config.tensor, p.operandType, p.n, p.k, p.m) * 10 <= asStored * 9) {
        orientations.insert(orientations.begin(), true);
    }
    for (int64_t kBlock : kBlocks) {
        for (int64_t nBlock : nBlocks) {
            for (int64_t mBlock : mBlocks) {
                if (mBlock > kMaxField16 || kBlock > kMaxField16 / 2 || nBlock > kMaxField16 / 2) continue;
                if (p.batch * ceilDiv(p.m, mBlock) * ceilDiv(p.n, nBlock) * ceilDiv(p.k, kBlock) > kMaxBlocks) {
                    continue;
                }
                for (bool doubleBuffer : {true, false}) {
                    for (GemmLoopOrder order : {GemmLoopOrder::MOuter, GemmLoopOrder::NOuter}) {
                        const GemmSchedule fitting{mBlock, nBlock, kBlock, order, doubleBuffer, false, {}};
                        const GemmFootprint f = gemmFootprint(p, fitting, config);
                        if (f.sramBytes > config.sram.sizeBytes || f.accumulatorBytes > config.accumulator.sizeBytes) {
                            continue;
                        }
                        for (bool transposed : orientations) {
                            GemmSchedule schedule = fitting;
                            schedule.transposed = transposed;
                            visit(schedule);
                        }
                    }
                }
            }
        }
    }
}

std::optional<GemmSchedule> searchGemmSchedules(const GemmProblem& p, const ArchConfig& config, const CostModel& model,
                                                const std::vector<int64_t>& kBlocks, const std::vector<int64_t>& mBlocks) {
    std::optional<GemmSchedule> best;
    GatherCosts gathers;
    // The lower bound is of the analytical cycles: it prunes that search alone.
    const bool pruned = model.params().objective == Objective::Cycles && !model.calibrated();
    forEachGemmSchedule(p, config, kBlocks, mBlocks, [&](GemmSchedule& schedule) {
        if (best && pruned && model.gemmLowerBound(p, schedule) >= best->estimate.totalCycles) return;
        schedule.estimate = model.estimateGemm(p, schedule, &gathers);
        if (!best || better(model, schedule.estimate, best->estimate)) best = schedule;
    });
    return best;
}

/// Calls `visit` with every vector schedule that fits (estimate not yet filled).
template <class Visit>
void forEachVectorSchedule(const VectorProblem& p, const ArchConfig& config, Visit visit) {
    if (p.blockCols() > kMaxField16) return;
    int64_t wholeRows = p.rows();
    for (int blockDim = 0; blockDim < p.rowDims(); ++blockDim) {
        const int64_t extent = p.dims[static_cast<size_t>(blockDim)];
        wholeRows /= extent;  // the rows of one index of blockDim
        int64_t blocks = 1;
        for (int d = 0; d < blockDim; ++d) blocks *= p.dims[static_cast<size_t>(d)];
        for (int64_t blockExtent : blockSizes(extent, 1)) {
            if (blockExtent * wholeRows > kMaxField16) break;
            if (blocks * ceilDiv(extent, blockExtent) > kMaxBlocks) continue;
            for (bool doubleBuffer : {true, false}) {
                VectorSchedule schedule{blockDim, blockExtent, doubleBuffer, {}};
                if (vectorFootprint(p, schedule, config) > config.sram.sizeBytes) continue;
                visit(schedule);
            }
        }
    }
}

}  // namespace

std::optional<GemmSchedule> chooseGemmSchedule(const GemmProblem& p, const ArchConfig& config, const CostModel& model) {
    return searchGemmSchedules(p, config, model, blockSizes(p.k, config.tensor.rows), blockSizes(p.m, 16));
}

std::optional<GemmSchedule> chooseGemmColumns(const GemmProblem& p, const GemmSchedule& base, const ArchConfig& config,
                                              const CostModel& model) {
    return searchGemmSchedules(p, config, model, {base.kBlock, p.k}, {base.mBlock});
}

std::optional<VectorSchedule> chooseVectorSchedule(const VectorProblem& p, const ArchConfig& config,
                                                  const CostModel& model) {
    std::optional<VectorSchedule> best;
    forEachVectorSchedule(p, config, [&](VectorSchedule& schedule) {
        schedule.estimate = model.estimateVector(p, schedule);
        if (!best || better(model, schedule.estimate, best->estimate)) best = schedule;
    });
    return best;
}

std::vector<GemmSchedule> gemmCandidates(const GemmProblem& p, const ArchConfig& config, const CostModel& model) {
    std::vector<GemmSchedule> candidates;
    GatherCosts gathers;
    forEachGemmSchedule(p, config, blockSizes(p.k, config.tensor.rows), blockSizes(p.m, 16), [&](GemmSchedule& schedule) {
        schedule.estimate = model.estimateGemm(p, schedule, &gathers);
        candidates.push_back(schedule);
    });
    return candidates;
}

std::vector<VectorSchedule> vectorCandidates(const VectorProblem& p, const ArchConfig& config, const CostModel& model) {
    std::vector<VectorSchedule> candidates;
    forEachVectorSchedule(p, config, [&](VectorSchedule& schedule) {
        schedule.estimate = model.estimateVector(p, schedule);
        candidates.push_back(schedule);
    });
    return candidates;
}

}  // namespace npusim::compiler
