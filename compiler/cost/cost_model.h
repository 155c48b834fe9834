// The compiler's analytical cost model: estimated cycles of a tile schedule on an
// architecture, from the same micro-architectural parameters the simulator uses. Tiling
// searches candidate schedules with it; `npusim compile --estimate` prints its figures.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arch/arch_config.h"
#include "compiler/tile/gemm_gather.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// What the schedule search minimises (`--objective`): the estimate's cycles, its energy, or
/// their product (energy-delay).
enum class Objective : uint8_t { Cycles, Energy, Edp };
std::optional<Objective> parseObjective(std::string_view name);
std::string_view objectiveName(Objective objective);

/// Weights of an estimate's features (CostFeature): total = sum of weight * feature. The
/// defaults are the analytical model (compute + memory + transfer + exposed + dispatch); `npusim
/// calibrate` fits them against the simulator for one architecture.
struct CostParams {
    std::array<double, kCostFeatures> weights{1, 1, 1, 1, 1, 0, 0};
    /// The DMA's timing: the fraction of the DRAM's bandwidth a DMA stream attains, and the
    /// cycles a DMA channel takes per burst it issues.
    double dmaBandwidth = 1, burstCycles = 1;
    /// The simulator's dynamic energy over the analytical estimate's (fitted by calibrate).
    double energyScale = 1;
    std::string archHash;  ///< the config they were fitted for; empty for the defaults
    /// What schedules are chosen for (not fitted: the compiler's `--objective`).
    Objective objective = Objective::Cycles;
};

/// What a gathered GEMM operand's B block's copies cost (GemmOperand::gather): its DMAs from
/// DRAM, its on-chip moves (from a resident source), its DRAM bytes and commands.
struct GatherBlockCost {
    double cycles = 0, moves = 0;
    uint64_t bytes = 0, commands = 0;
};

/// A gathered B block's fills and the vector unit's cycles for them.
struct GatherBlockFills {
    std::vector<GatherFill> fills;
    double cycles = 0;
};

/// The gathered B blocks' costs of one problem under one model. A block's gathers depend on
/// the block, not on the schedule, so the candidates of one schedule search share them.
struct GatherCosts {
    /// Copies: blocks near the operand's column borders by their origin, an interior block by
    /// its phase in the gather period (gatherPeriod), as interior blocks at one phase copy alike.
    std::map<std::array<int64_t, 5>, GatherBlockCost> copies;
    /// Fills, by block origin and extent: the padding rows at the top and bottom of an image
    /// make the fills of blocks near them differ from their phase's.
    std::map<std::array<int64_t, 4>, GatherBlockFills> fills;
};

class CostModel {
public:
    /// `resident`: intermediates the memory plan keeps in SRAM, whose vector transfers are
    /// on-chip moves. Tiling runs before memory planning and prices every transfer in DRAM.
    explicit CostModel(const ArchConfig& config, CostParams params = {}, std::set<ValueId> resident = {})
        : config_(config), params_(std::move(params)), resident_(std::move(resident)) {}

    /// `gathers`: the problem's gathered block costs known so far (a search's), which it adds
    /// to; without it, the estimate keeps its own.
    CostEstimate estimateGemm(const GemmProblem& problem, const GemmSchedule& schedule,
                              GatherCosts* gathers = nullptr) const;
    /// A lower bound of estimateGemm's total under the default weights, cheap to compute: the
    /// array's time and the control core's cost of the GEMM commands, summed per distinct
    /// block size. With fitted weights (calibrated()) it bounds nothing.
    double gemmLowerBound(const GemmProblem& problem, const GemmSchedule& schedule) const;
    CostEstimate estimateVector(const VectorProblem& problem, const VectorSchedule& schedule) const;
    /// A tile op's estimate: its schedule's (a GEMM, a CPU segment) or its kernels' summed.
    CostEstimate estimateTileOp(const TileOp& op) const;

    /// The array's time for one block's tiles issued back to back. Weight stationary: each
    /// tile streams m rows after its k weight rows; output stationary: each tile streams k
    /// steps and shifts out its m rows.
    struct ArrayTime {
        /// The array's own time: double-buffered, every tile's stream and each preload beyond
        /// the stream it hides behind (the first tile's behind the previous block's last
        /// stream, as blocks follow each other without a drain); single-buffered, every tile's
        /// preload, stream, fill and drain.
        double occupancy = 0;
        /// Double-buffered: the part of the first tile's preload that occupancy takes as hidden
        /// behind the previous block's last stream, exposed when no block streams before it,
        /// and the fill and drain from the last stream until the results are in the
        /// accumulator memory (0 single-buffered: occupancy has them). A block alone on the
        /// array takes occupancy + firstPreload + latency.
        double firstPreload = 0, latency = 0;
    };
    ArrayTime arrayBlockTime(DType dtype, const GemmBlock& block) const;
    /// A DMA of `rows` rows of `rowBytes`, `strideBytes` apart in DRAM (one run when the stride
    /// is the row; 0: unknown): the slowest of the DRAM transfer on the channels it reaches,
    /// the DMA channels' burst issue and their outstanding-request window. The engine
    /// pipelines consecutive DMAs, so the first byte's latency (firstByteCycles) is paid once
    /// per stage of transfers, not per DMA.
    double dmaCycles(uint64_t rows, uint64_t rowBytes, uint64_t strideBytes) const;
    /// The cycles from a DMA burst's issue to its first byte on the DRAM's bus.
    double firstByteCycles() const;
    /// The fraction of the DRAM channels a DMA's addresses reach (all, for an unknown stride).
    double channelShare(uint64_t rows, uint64_t rowBytes, uint64_t strideBytes) const;
    /// A DMA of `rows` strided rows of `elements` elements of `elementBytes`, `elementStride`
    /// bytes apart (rows `rowStrideBytes` apart; 0: unknown): elements a burst or more apart
    /// take a burst each, closer ones a burst per burst-sized span of the row.
    double stridedDmaCycles(uint64_t rows, uint64_t elements, uint64_t elementBytes, uint64_t elementStride,
                            uint64_t rowStrideBytes) const;
    /// One DMA transfer of a vector block, between DRAM and SRAM.
    double transferCycles(const BlockTransfer& transfer, uint64_t elementBytes) const;
    /// One DMA transfer of a vector block within SRAM: its bursts, issued by the DMA channels,
    /// and the last one's SRAM read and write.
    double moveCycles(const BlockTransfer& transfer, uint64_t elementBytes) const;
    /// The burst issue of a transfer within SRAM alone: transfers the engine runs back to back
    /// overlap each one's last SRAM access with the next one's bursts.
    double moveIssueCycles(const BlockTransfer& transfer, uint64_t elementBytes) const;
    /// Gathering B's block: its DMA cycles and bytes from DRAM, and its on-chip moves' cycles
    /// (run back to back: their bursts' issue, and the last one's SRAM access once).
    GatherBlockCost gatherBlockCost(const GemmProblem& problem, const GemmBlock& block) const;
    /// One indexed load of a vector block (transfer.firstIndex): its index list of
    /// `indexBytes` elements, which its rows wait for, then each row a run of its own, from
    /// DRAM or, for a resident table, within SRAM.
    double indexedCycles(const BlockTransfer& transfer, uint64_t elementBytes, uint64_t indexBytes, bool onChip) const;
    bool resident(ValueId value) const { return resident_.contains(value); }
    /// One vector command over `elements` elements.
    double vectorCycles(isa::VectorOp op, int64_t elements) const;
    /// One windowed vector command on a buffer of `elementBytes` elements: its arithmetic, or
    /// its strided rows' read from the SRAM banks when that takes longer.
    double windowCommandCycles(isa::VectorOp op, const WindowCommand& command, uint64_t elementBytes) const;
    /// The SRAM's cycles to read `rows` rows of `rowBytes`, `strideBytes` apart, from
    /// `offset` bytes past a bank-aligned buffer start: each bank serves its chunks one per
    /// cycle and port, so the access takes as long as its busiest bank.
    double sramReadCycles(uint64_t offset, uint64_t rows, uint64_t rowBytes, uint64_t strideBytes) const;
    /// The control core's cost of fetching, validating and dispatching `commands` commands.
    double commandOverheadCycles(uint64_t commands) const;
    /// The dynamic energy of an estimate's work (its other figures filled): `macs` MACs of
    /// `macType`, `tensorBytes` of the tensor unit's operand and result traffic in SRAM, its
    /// DRAM bytes through a DMA engine and SRAM, its commands' fetch from DRAM with the row
    /// activations of both (a burst's under a closed page, a row's under an open one), the
    /// vector unit's cycles on every lane (each cycle a 4-byte element read and one written),
    /// and the control core's cycles, at the arch config's energy per action and operating
    /// voltage, times the fitted scale. An approximation of what reports count (their lane
    /// cycles leave out the pipeline's fill, their vector work is priced at the op's dtype).
    double energyPj(const CostEstimate& e, uint64_t macs, DType macType, double tensorBytes) const;
    /// What the search minimises for an estimate, by the objective.
    double score(const CostEstimate& e) const;

    const CostParams& params() const { return params_; }
    const ArchConfig& config() const { return config_; }
    /// Whether the cycle weights are fitted rather than the analytical defaults.
    bool calibrated() const {
        const CostParams defaults;
        return params_.weights != defaults.weights || params_.dmaBandwidth != defaults.dmaBandwidth ||
               params_.burstCycles != defaults.burstCycles;
    }
    /// The DRAM bytes per cycle a DMA stream moves.
    double dmaBytesPerCycle() const;
    /// The weighted sum of an estimate's features.
    double total(const std::array<double, kCostFeatures>& features) const;

private:
    GatherBlockFills gatherBlockFills(const GemmProblem& problem, const GemmBlock& block) const;

    const ArchConfig& config_;
    CostParams params_;
    std::set<ValueId> resident_;
};

}  // namespace npusim::compiler
