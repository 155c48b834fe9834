// Findings: each performance failure the run shows, named at the op that caused it, with the
// cycles it cost and what would remove it.
#include <algorithm>
#include <cstdio>
#include <map>

#include "reports/report.h"

namespace npusim::reports {
namespace {

std::string bytesText(uint64_t bytes) {
    char buffer[32];
    if (bytes >= (uint64_t{1} << 20)) {
        std::snprintf(buffer, sizeof buffer, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    } else if (bytes >= 1024) {
        std::snprintf(buffer, sizeof buffer, "%.1f KiB", static_cast<double>(bytes) / 1024);
    } else {
        std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(bytes));
    }
    return buffer;
}

Finding spillFinding(const OpReport& op, const OpRecord& record, const ArchConfig& config) {
    Finding f;
    f.kind = "spill";
    f.op = op.name;
    f.opId = op.opId;
    f.cycles = op.spillCycles;
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
    Finding f;
    f.kind = "reformat";
    f.op = op.name;
    f.opId = op.opId;
    f.cycles = op.reformatCycles;
    const std::string what = record.note.empty() ? "a tensor between layouts" : record.note;
    f.message = op.name + " rewrites " + what + ": " + std::to_string(op.reformatCount) +
                " reformat commands, " + std::to_string(op.reformatCycles) + " cycles";
    f.hint = "readers that take the producer's layout, or a producer that writes theirs, remove the "
             "reformat (a convolution's GEMM writes channels outermost; with a batch of 1 the layouts coincide)";
    return f;
}

Finding cpuFallbackFinding(const OpReport& op, const OpRecord& record) {
    Finding f;
    f.kind = "cpu_fallback";
    f.op = op.name;
    f.opId = op.opId;
    f.cycles = op.hostCopyCycles + op.hostKernelCycles;
    f.message = op.name + " (" + op.type + ") " + (record.note.empty() ? "runs on the host CPU" : record.note) +
                ": its JIT kernel takes " + std::to_string(op.hostKernelCycles) + " cycles and copying " +
                bytesText(op.hostCopyBytes) + " out of device memory and back " + std::to_string(op.hostCopyCycles) +
                ", with the NPU idle in between";
    f.hint = "an NPU lowering of " + op.type + " (or a model that avoids it) removes the CPU segment; a faster "
             "host (host.cpu_gops) or copy path (host.copy_gbps) shortens it";
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
    }
    std::stable_sort(findings.begin(), findings.end(),
                     [](const Finding& a, const Finding& b) { return a.cycles > b.cycles; });
    return findings;
}

}  // namespace npusim::reports
