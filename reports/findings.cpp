// Findings: each performance failure the run shows, named at the op that caused it, with the
// cycles it cost and what would remove it.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "reports/report.h"
#include "reports/text_format.h"

namespace npusim::reports {
namespace {

/// Below this many cycles lost, a failure is not worth a finding.
constexpr uint64_t kMinimumCycles = 64;

/// A finding of `kind` at `op` that cost `cycles`; message and hint to be written.
Finding finding(const char* kind, const OpReport& op, uint64_t cycles) {
    Finding f;
    f.kind = kind;
    f.op = op.name;
    f.opId = op.opId;
    f.cycles = cycles;
    return f;
}

Finding spillFinding(const OpReport& op, const OpRecord& record, const ArchConfig& config) {
    Finding f = finding("spill", op, op.spillCycles);
    std::string tensors;
    const SpillRecord* largest = nullptr;
    for (const SpillRecord& spill : record.spills) {
        if (!tensors.empty()) tensors += ", ";
        tensors += spill.tensor + " (" + bytesText(spill.bytes) + ")";
        if (!largest || spill.sramToKeep > largest->sramToKeep) largest = &spill;
    }
    if (tensors.empty()) tensors = "an intermediate";
    f.message = tensors + (record.spills.size() > 1 ? " do" : " does") + " not fit on chip and go" +
                (record.spills.size() > 1 ? "" : "es") + " through DRAM at " + op.name + ": " +
                std::to_string(op.spillCount) + " spill transfers move " + bytesText(op.spillBytes) + " (" +
                std::to_string(op.spillCycles) + " DMA cycles); the working sets beside it leave too little of the " +
                bytesText(config.sram.sizeBytes) + " SRAM";
    f.hint = largest ? bytesText(largest->sramToKeep) + " of SRAM keeps " + largest->tensor +
                           " on chip; smaller tiles of the ops it lives across also make room"
                     : "more SRAM or smaller tiles keep the tensor on chip";
    return f;
}

Finding reformatFinding(const OpReport& op, const OpRecord& record) {
    Finding f = finding("reformat", op, op.reformatCycles);
    const std::string what = record.note.empty() ? "a tensor between layouts" : record.note;
    f.message = op.name + " rewrites " + what + ": " + std::to_string(op.reformatCount) +
                " reformat commands, " + std::to_string(op.reformatCycles) + " cycles";
    f.hint = "readers that take the producer's layout, or a producer that writes theirs, remove the "
             "reformat (a convolution's GEMM writes channels outermost; with a batch of 1 the layouts coincide)";
    return f;
}

Finding cpuFallbackFinding(const OpReport& op, const OpRecord& record) {
    Finding f = finding("cpu_fallback", op, op.hostCopyCycles + op.hostKernelCycles);
    f.message = op.name + " (" + op.type + ") " + (record.note.empty() ? "runs on the host CPU" : record.note) +
                ": its JIT kernel takes " + std::to_string(op.hostKernelCycles) + " cycles and copying " +
                bytesText(op.hostCopyBytes) + " out of device memory and back " + std::to_string(op.hostCopyCycles) +
                ", with the NPU idle in between";
    f.hint = "an NPU lowering of " + op.type + " (or a model that avoids it) removes the CPU segment; a faster "
             "host (host.cpu_gops) or copy path (host.copy_gbps) shortens it";
    return f;
}

Finding weightStreamingFinding(const OpReport& op, const ArchConfig& config) {
    Finding f = finding("weight_streaming", op, op.weightUploadCycles);
    f.message = op.name + " (" + op.type + ") reads weights the device's DRAM cannot keep beside the model's other tensors: " +
                bytesText(op.weightUploadBytes) + " are copied in from the host before its job, " +
                std::to_string(op.weightUploadCycles) + " cycles with the NPU idle, on every run";
    f.hint = "more DRAM (dram.size_mib, now " + bytesText(config.dram.sizeBytes) +
             ") keeps every weight resident; narrower weights (int8) halve the bytes, a faster host copy (host.copy_gbps) "
             "shortens the upload";
    return f;
}

std::string number(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

/// An op whose units wait on SRAM or accumulator banks another unit holds for at least 5% of
/// its cycles.
std::optional<Finding> bankConflictFinding(const OpReport& op, const ArchConfig& config) {
    const uint64_t waited = op.stalls[static_cast<size_t>(trace::StallReason::SramBankConflict)];
    if (waited < kMinimumCycles || 20 * waited < op.cycles) return std::nullopt;
    Finding f = finding("bank_conflict", op, waited);
    f.message = op.name + " (" + op.type + ") waits " + std::to_string(waited) + " cycles on SRAM or accumulator banks held by another unit (" +
                fixedText(static_cast<double>(waited) / static_cast<double>(op.cycles) * 100, 0) + "%" + " of its " + std::to_string(op.cycles) + " cycles)";
    f.hint = "buffers whose row pitch is a multiple of the bank interleave (" + std::to_string(config.sram.banks) + " banks x " +
             std::to_string(config.sram.bankWidthBytes) + " B) hit one bank; more banks (sram.banks) or more ports (sram.ports) "
             "spread the accesses";
    return f;
}

/// An op whose units spent more than half of its span waiting on each other (bound "sync"):
/// the cycles no unit did its main work.
std::optional<Finding> syncStallFinding(const OpReport& op) {
    const uint64_t working = std::max({op.tensorBusy, op.vectorBusy, op.loadBusy, op.storeBusy, op.dispatchCycles});
    if (op.bound != "sync" || op.cycles < working + kMinimumCycles) return std::nullopt;
    const uint64_t waited = op.stalls[static_cast<size_t>(trace::StallReason::SemaphoreWait)];
    Finding f = finding("sync_stall", op, op.cycles - working);
    f.message = op.name + " (" + op.type + ") keeps no unit busy for " + std::to_string(op.cycles - working) + " of its " +
                std::to_string(op.cycles) + " cycles: its loads, compute and stores wait on each other (" +
                std::to_string(waited) + " cycles of semaphore waits) instead of overlapping";
    f.hint = "blocks that are double-buffered and large enough to hide each load behind the previous block's compute "
             "(or fusing the op into its producer or reader) let the units overlap";
    return f;
}

/// An op the control core's dispatching paces (bound "dispatch").
std::optional<Finding> dispatchFinding(const OpReport& op, const ArchConfig& config) {
    const uint64_t working = std::max({op.tensorBusy, op.vectorBusy, op.loadBusy, op.storeBusy});
    if (op.bound != "dispatch" || op.dispatchCycles < working + kMinimumCycles) return std::nullopt;
    Finding f = finding("dispatch_overhead", op, op.dispatchCycles - working);
    f.message = op.name + " (" + op.type + ") is paced by command dispatch: the control core works " +
                std::to_string(op.dispatchCycles) + " cycles on its commands while no unit is busy more than " +
                std::to_string(working);
    f.hint = "fewer, larger commands (bigger blocks, fused kernels) or a cheaper dispatch (control_core.dispatch_cycles = " +
             std::to_string(config.controlCore.dispatchCycles) + ") remove the overhead";
    return f;
}

/// A memory-bound op that moves at least 25% more DRAM bytes than its compulsory traffic:
/// operands read again because its blocks do not keep them on chip.
std::optional<Finding> memoryBoundFinding(const OpReport& op, const OpRecord& record, const ArchConfig& config) {
    if (op.bound != "memory" || record.minDramBytes == 0 || 4 * op.dramBytes < 5 * record.minDramBytes) return std::nullopt;
    const uint64_t extra = op.dramBytes - record.minDramBytes;
    const auto cycles = static_cast<uint64_t>(static_cast<double>(extra) / config.dram.bytesPerCycle);
    if (cycles < kMinimumCycles) return std::nullopt;
    Finding f = finding("memory_bound", op, cycles);
    f.message = op.name + " (" + op.type + ") is memory bound and moves " + bytesText(op.dramBytes) + " through DRAM where " +
                bytesText(record.minDramBytes) + " is compulsory: the extra " + bytesText(extra) + " (operands read again) cost about " +
                std::to_string(cycles) + " cycles at " + number(config.dram.bandwidthGbps) + " GB/s";
    f.hint = "more SRAM (sram.size_kib, now " + bytesText(config.sram.sizeBytes) +
             ") or blocks that reuse each operand longer keep it on chip; a narrower dtype halves the bytes";
    return f;
}

/// A tensor-unit op whose array does useful work in less than half of its busy cycles: tile
/// edges (M, N or K smaller than, or not a multiple of, the array) leave rows or columns idle.
std::optional<Finding> lowUtilizationFinding(const OpReport& op, const OpRecord& record, const ArchConfig& config) {
    const double peak = config.tensor.peakMacsPerCycle(record.dtype);
    if (op.tensorBusy == 0 || record.macs == 0 || peak <= 0) return std::nullopt;
    const double ideal = static_cast<double>(record.macs) / peak;
    const double utilization = ideal / static_cast<double>(op.tensorBusy);
    const auto lost = static_cast<uint64_t>(static_cast<double>(op.tensorBusy) - ideal);
    if (utilization >= 0.5 || lost < kMinimumCycles) return std::nullopt;
    Finding f = finding("low_utilization", op, lost);
    f.message = op.name + " (" + op.type + ") uses " + fixedText(utilization * 100, 0) + "%" + " of the " + std::to_string(config.tensor.rows) + "x" +
                std::to_string(config.tensor.cols) + " array while it streams: " + std::to_string(record.macs) + " MACs in " +
                std::to_string(op.tensorBusy) + " busy cycles, " + std::to_string(static_cast<uint64_t>(ideal)) + " at full use";
    f.hint = "GEMM dims (K against the array's rows, N against its columns) that fill the array, or batching small "
             "GEMMs together, keep its PEs busy";
    return f;
}

/// What an estimate's largest term stands for (the cost model's CostFeature names).
std::string estimateTermMeaning(const std::string& term) {
    if (term == "compute") return "the units' work";
    if (term == "memory") return "its DMA commands' latency and burst issue";
    if (term == "transfer") return "its DRAM transfers at full bandwidth";
    if (term == "exposed") return "first loads and last stores that no compute hides";
    if (term == "dispatch") return "the control core's dispatch of its commands";
    if (term == "per_block") return "synchronisation per block";
    return "a fixed cost per op";
}

/// An op that takes at least twice its shape-aware bound: the unit whose busy time most exceeds
/// what the op's shape needs of it says where the cycles went, and the cost model's estimate
/// what it expected of the schedule.
std::optional<Finding> belowBoundFinding(const OpReport& op, const OpRecord& record) {
    const ShapeBound& b = op.shape;
    if (op.cycles == 0 || op.bound == "host" || b.attainableCycles <= 0 || b.efficiency >= 0.5) return std::nullopt;
    const auto lost = static_cast<uint64_t>(static_cast<double>(op.cycles) - b.attainableCycles);
    if (lost < kMinimumCycles) return std::nullopt;
    struct Unit {
        const char* name;
        uint64_t busy;
        double needed;
        const char* why;
        const char* hint;
    };
    const Unit units[] = {
        {"the array", op.tensorBusy, static_cast<double>(b.arrayCycles),
         "tiles that fill fewer rows or columns than the array allows, preloads not hidden under streams, or waits on SRAM banks",
         "blocks as large as the array (whole K and N tiles), double-buffered, or a mapping that puts the GEMM's larger dim "
         "on the array's columns"},
        {"the vector unit", op.vectorBusy, static_cast<double>(b.vectorCycles),
         "commands over short rows (each pays the pipeline's fill) or steps repeated per block",
         "longer rows per command (a layout with the reduced or broadcast dim innermost), or the op fused into its producer"},
        {"the load DMA", op.loadBusy, std::max(static_cast<double>(b.loadCycles), b.dramCycles),
         "short DMA rows (a strided gather moves one element per row), operands loaded more than once, or bursts waiting on DRAM",
         "contiguous runs per DMA row (a layout or gather that reads whole rows), or blocks that keep operands on chip"},
        {"the store DMA", op.storeBusy, std::max(static_cast<double>(b.storeCycles), b.dramCycles),
         "short DMA rows, or results stored more than once",
         "results stored in whole rows, or kept on chip for their reader"},
    };
    const Unit* worst = nullptr;
    double excess = 0;
    for (const Unit& u : units) {
        const double over = static_cast<double>(u.busy) - u.needed;
        if (over > excess) {
            excess = over;
            worst = &u;
        }
    }
    Finding f = finding("below_bound", op, lost);
    f.message = op.name + " (" + op.type + ") takes " + std::to_string(op.cycles) + " cycles where its shape-aware bound is " +
                wholeText(b.attainableCycles) + " (set by " + b.limit + "; " + fixedText(b.efficiency * 100, 1) + "% efficiency)";
    if (worst && 2 * worst->busy >= op.cycles) {
        f.message += ": " + std::string(worst->name) + " is busy " + std::to_string(worst->busy) + " cycles where its shape needs " +
                     wholeText(worst->needed) + " (" + worst->why + ")";
        f.hint = worst->hint;
    } else {
        f.message += ": no unit is busy for half of its cycles; its loads, compute and stores wait on each other (" +
                     std::to_string(op.stallCycles) + " stall cycles) or on dispatch (" + std::to_string(op.dispatchCycles) + ")";
        f.hint = "larger blocks that overlap loads with compute, or fewer, longer commands";
    }
    if (!record.estimateLargest.empty()) {
        f.message += "; the cost model expected " + wholeText(record.estimatedCycles) + " cycles for its schedule, most of them " +
                     estimateTermMeaning(record.estimateLargest);
    }
    return f;
}

}  // namespace

std::vector<Finding> findFailures(const Report& report, const RunRecord& run) {
    std::map<uint32_t, const OpRecord*> records;
    for (const OpRecord& record : run.manifest.ops) records[record.opId] = &record;
    std::vector<Finding> findings;
    for (const OpReport& op : report.ops) {
        if (op.spillCount > 0) findings.push_back(spillFinding(op, *records.at(op.opId), run.config));
        if (op.reformatCount > 0) findings.push_back(reformatFinding(op, *records.at(op.opId)));
        if (op.hostKernelCycles + op.hostCopyCycles > 0) findings.push_back(cpuFallbackFinding(op, *records.at(op.opId)));
        if (op.weightUploadCycles > 0) findings.push_back(weightStreamingFinding(op, run.config));
        const OpRecord& record = *records.at(op.opId);
        for (std::optional<Finding> f : {bankConflictFinding(op, run.config), syncStallFinding(op), dispatchFinding(op, run.config),
                                         memoryBoundFinding(op, record, run.config), lowUtilizationFinding(op, record, run.config),
                                         belowBoundFinding(op, record)}) {
            if (f) findings.push_back(std::move(*f));
        }
    }
    std::stable_sort(findings.begin(), findings.end(),
                     [](const Finding& a, const Finding& b) { return a.cycles > b.cycles; });
    return findings;
}

}  // namespace npusim::reports
