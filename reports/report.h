// The timing report of one run, built from trace events and the artifact's op table (never
// from hardware-model internals), and its machine-readable and human-readable forms.
// Schema and stall taxonomy: docs/REPORTS.md.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch_config.h"
#include "arch/artifact.h"
#include "arch/run_timing.h"
#include "arch/trace_event.h"

namespace npusim::reports {

/// A named interval trace.json shows on a track of its own (a generation's steps).
struct TraceSlice {
    std::string name;
    uint64_t start = 0, end = 0;
};

/// Everything a run leaves behind for reporting.
struct RunRecord {
    const ArchConfig& config;
    const ArtifactManifest& manifest;
    const trace::Recorder& trace;
    uint64_t jobStartCycle = 0, jobCycles = 0;
    uint64_t dramBytesRead = 0, dramBytesWritten = 0;
    uint64_t dramRowHits = 0, dramRowMisses = 0;
    std::span<const TraceSlice> slices = {};  ///< on the "steps" track of trace.json
    /// DRAM row misses of the inference itself (the row activations its energy counts;
    /// dramRowMisses may include the model's load).
    uint64_t inferenceRowMisses = 0;
    /// Where the run's events start in `trace` (earlier ones are other runs').
    size_t firstEvent = 0;
};

/// Outcome of comparing outputs with a reference: within tolerance, and the largest errors.
struct Comparison {
    bool passed = false;
    double maxAbsError = 0, maxRelError = 0;
    std::string worstOutput;
};

/// One output against its reference: its largest errors, and how close it is as a whole.
struct OutputAccuracy {
    std::string name;
    double maxAbsError = 0, maxRelError = 0;
    double snrDb = 0;   ///< 10 log10 of the reference's power over the error's; infinity when identical
    double cosine = 1;  ///< cosine similarity of the output and the reference, flattened
    /// Scores over classes (shape [N, C] or [N, T, C], C >= 5), else -1: the share of rows whose
    /// highest score is the reference's, and whose reference class is among its five highest.
    double top1 = -1, top5 = -1;
};

/// One op's result in the compiled program against the same result in the reference
/// (--check-per-op): its largest error over its largest magnitude, and its cosine similarity.
struct OpDrift {
    std::string op, output;
    double maxRelError = 0, cosine = 1;
};

/// Outcome of comparing outputs with the reference interpreter (--check).
struct CheckResult : Comparison {
    std::vector<OutputAccuracy> outputs;
    /// The precision the run computed in: below fp32, `program` compares the outputs with the
    /// compiled program's own semantics, and `passed` is its verdict (the errors against the
    /// fp32 reference are the precision's cost, held to a tolerance only when one is given).
    std::string precision = "fp32";
    std::optional<Comparison> program;
    /// --check-per-op: every op result the program shares with the reference, in op order, and
    /// the first whose error exceeds `driftTolerance` of its largest magnitude (empty: none).
    std::vector<OpDrift> perOp;
    double driftTolerance = 0;
    std::string firstDrift;
};

struct UnitReport {
    std::string name;
    uint64_t busy = 0, idle = 0, commands = 0;
    std::array<uint64_t, trace::kStallReasonCount> stalls{};
    double utilization = 0;
};

/// An op's shape-aware roofline: the fewest cycles each unit needs for it whatever its
/// schedule (the array for its GEMM's shape, the vector unit, the load and store DMA engines,
/// DRAM for its compulsory bytes); the op can go no faster than the slowest of them.
struct ShapeBound {
    uint64_t arrayCycles = 0, vectorCycles = 0, loadCycles = 0, storeCycles = 0;
    double dramCycles = 0;
    std::string limit;  ///< the term that sets the bound: array, vector, load, store, dram; none
    double attainableCycles = 0, efficiency = 0;
};

struct OpReport {
    uint32_t opId = 0;
    std::string name, type, dtype;
    uint64_t cycles = 0;      ///< first command start to last command end
    uint64_t macs = 0, dramBytes = 0;
    uint64_t sramBytes = 0;  ///< SRAM in use while the op runs (the compiler's plan)
    uint64_t tensorBusy = 0, vectorBusy = 0, loadBusy = 0, storeBusy = 0, stallCycles = 0;
    std::array<uint64_t, trace::kStallReasonCount> stalls{};  ///< stallCycles by reason
    uint64_t dispatchCycles = 0;  ///< the control core's work for the op within its span
    /// Commands dispatched for the op (loops expanded) and the bytes of descriptors the
    /// artifact holds for them (the compiler's op table).
    uint64_t commands = 0, commandBytes = 0;
    /// What limits the op: compute or memory when that unit kind is busy at least half of the
    /// op's cycles, else dispatch when the control core is, else sync (units waiting).
    std::string bound;
    /// The op's roofline: the tensor unit's peak for its dtype (0 when it has no MACs), its
    /// compulsory DRAM bytes, MACs per compulsory byte (0 without DRAM traffic), and the
    /// cycles the slower of the two roofs allows.
    double peakMacsPerCycle = 0;
    uint64_t minDramBytes = 0;
    double intensity = 0;
    double attainableCycles = 0, efficiency = 0;
    ShapeBound shape;
    /// Spill and reformat commands of the op: how many, bytes moved, busy cycles.
    uint64_t spillCount = 0, spillBytes = 0, spillCycles = 0;
    uint64_t reformatCount = 0, reformatCycles = 0;
    /// A CPU segment's op: host cycles copying its tensors out of and back into device memory,
    /// and running its kernel, and the bytes copied.
    uint64_t hostCopyCycles = 0, hostKernelCycles = 0, hostCopyBytes = 0;
    /// The op's streamed weights: host cycles copying them into device memory before its job,
    /// and their bytes (outside the op's span: the NPU waits for them between jobs).
    uint64_t weightUploadCycles = 0, weightUploadBytes = 0;
    /// Dynamic energy of the op's actions on every unit, with its share of the job's own work
    /// (command fetches, DRAM row activations): the ops' energies add up to the run's dynamic
    /// energy (docs/REPORTS.md).
    double energyPj = 0;
};

/// One unit's energy over the run: dynamic from its actions, leakage from its area over the
/// run's time (DRAM: dynamic only, off chip).
struct UnitEnergy {
    std::string unit;  ///< control_core, dma_load, dma_store, tensor, vector, sram, dram
    double dynamicPj = 0, leakagePj = 0;
    double areaMm2 = 0;
};

/// The run's energy, power and area (docs/REPORTS.md): the arch config's energy per action
/// applied to every command the units executed.
struct EnergyReport {
    double technologyNm = 0;
    double dynamicPj = 0, leakagePj = 0;
    std::vector<UnitEnergy> units;  ///< their dynamic and leakage energies add up to the totals
    double areaMm2 = 0;
    uint64_t dramActivates = 0;
    /// Power averaged over the run, and the highest over any window of `windowCycles` (its
    /// dynamic energy over its time, plus leakage).
    double averageWatts = 0, peakWatts = 0, leakageWatts = 0;
    uint64_t windowCycles = 0;
    uint64_t macs = 0;  ///< the run's, for the figures of merit

    double totalPj() const { return dynamicPj + leakagePj; }
    /// The whole energy per MAC, and two operations per MAC over it (ops / pJ = TOPS / W); 0
    /// without MACs.
    double pjPerMac() const { return macs ? totalPj() / static_cast<double>(macs) : 0; }
    double topsPerWatt() const { return macs && totalPj() > 0 ? 2.0 * static_cast<double>(macs) / totalPj() : 0; }
};

/// A performance failure named at the op that caused it.
struct Finding {
    /// spill, reformat, cpu_fallback, weight_streaming, bank_conflict, sync_stall,
    /// dispatch_overhead, memory_bound, low_utilization, below_bound, decode_memory_bound
    /// (docs/REPORTS.md says when each is raised)
    std::string kind;
    std::string op;    ///< the ONNX node name
    uint32_t opId = 0;
    uint64_t cycles = 0;  ///< cycles lost: the busy cycles of the commands the failure added
    std::string message, hint;
};

/// The shape bucket a run used: the symbolic dim, the size compiled for, the actual size.
struct BucketUse {
    std::string symbol;
    int64_t size = 0, actual = 0;
};

/// RTL blocks a run used in place of model cores, and every command whose cycles on the RTL
/// differ from the timing model's.
struct RtlUse {
    struct Block {
        std::string name;  ///< "tensor", "vector"
        uint64_t onRtl = 0, onModel = 0;  ///< commands the RTL ran, and left to the model core
        uint64_t clockCycles = 0;         ///< cycles the RTL was clocked
    };
    struct Difference {
        std::string block;
        std::string op;  ///< the ONNX node name
        uint32_t opId = 0, tileId = 0;
        uint64_t modelCycles = 0, rtlCycles = 0;
        std::string detail;  ///< the phases compared
    };
    std::vector<Block> blocks;
    std::vector<Difference> differences;
};

/// Faults injected into a run (npusim run --inject): each one and whether it fired, the job
/// failures they caused that the runtime ran again, the interrupts the driver found lost and
/// the DRAM errors the ECC corrected.
struct FaultUse {
    struct Injected {
        std::string kind;
        uint64_t at = 0;
        bool fired = false;
    };
    std::vector<Injected> injected;
    std::vector<std::string> jobFailures;
    uint64_t lostInterrupts = 0;
    uint64_t correctedErrors = 0;  ///< single-bit DRAM errors the ECC corrected
};

struct Report {
    std::string model, arch;
    std::string precision = "fp32";  ///< the artifact's (`compile --precision`)
    std::string objective = "cycles";  ///< what its schedules were chosen for (`compile --objective`)
    uint64_t totalCycles = 0;
    double clockHz = 0;
    std::vector<UnitReport> units;
    uint64_t dramBytesRead = 0, dramBytesWritten = 0;
    uint64_t dramRowHits = 0, dramRowMisses = 0;
    double dramBytesPerCycle = 0, dramGbps = 0;
    std::vector<OpReport> ops;
    double peakMacsPerCycle = 0, peakDramBytesPerCycle = 0, attainableCycles = 0, efficiency = 0;
    /// The shape-aware roofline of the run: its ops' shape-aware bounds one after another.
    double shapeAttainableCycles = 0, shapeEfficiency = 0;
    std::vector<Finding> findings;  ///< most cycles lost first
    RunTiming timing;               ///< cold, warm and steady state on the host's clock
    std::optional<BucketUse> bucket;
    std::optional<CheckResult> check;
    std::optional<RtlUse> rtl;
    std::optional<FaultUse> faults;
    /// `npusim generate`'s section (docs/LLM.md), as the text of its JSON object: the report is
    /// then one decode step's, and this section the whole generation's.
    std::optional<std::string> generation;
    EnergyReport energy;
    bool timingOnly = false;  ///< values were not computed (npusim run --timing-only)
};

/// A plot of the report directory: its name (plots/<name>.png) and the PNG's bytes.
struct Plot {
    std::string name;
    std::string png;
};

Report buildReport(const RunRecord& run);
/// The run's energy and power, each op's dynamic energy written into `ops` (by op id).
EnergyReport measureEnergy(const RunRecord& run, std::vector<OpReport>& ops);
/// The run's power in windows of `windowCycles` from cycle `start` on (dynamic energy over the
/// window's time plus leakage, in W), for trace.json's power track.
std::vector<double> powerWindows(const RunRecord& run, uint64_t start, uint64_t end, uint64_t windowCycles);
/// Every op, and the run, that took fewer cycles than its plain or shape-aware roofline allows,
/// one line each (empty when none did): a bound no schedule can beat, beaten, is a wrong bound.
std::vector<std::string> boundViolations(const Report& report);
/// Reads report.json back (InputError naming `source` and the problem when it is not one).
Report reportFromJson(std::string_view text, const std::string& source);
/// The findings of a built report, most cycles lost first.
std::vector<Finding> findFailures(const Report& report, const RunRecord& run);
std::string reportToJson(const Report& report);
std::string reportToMarkdown(const Report& report);
/// A self-contained page: report.md's sections with the plots (timeline, utilization,
/// op_cycles, roofline) embedded.
std::string reportToHtml(const Report& report, const std::vector<Plot>& plots);
/// Writes Chrome trace-event JSON (opens in Perfetto) to `out`, an event a line: one track per
/// unit, slices named by op and kind.
void writeChromeTrace(std::ostream& out, const RunRecord& run);
/// The timeline plot's data (timeline.json): from cycle 0 to the trace's last event in `bins`
/// equal bins, the fraction of each bin every unit was busy and stalled (every event counted,
/// split exactly across bins), and each op's span, in microseconds.
std::string timelineToJson(const RunRecord& run, size_t bins = 600);

}  // namespace npusim::reports
