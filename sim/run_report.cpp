// The report of a co-simulated run.
#include "sim/run_report.h"

#include <algorithm>

namespace npusim::sim {
namespace {

/// The RTL use of a run: the blocks, and each command that took other cycles on the RTL than
/// in the timing model, named by op.
reports::RtlUse rtlUse(const rtl::RtlLog& log, const ArtifactManifest& manifest) {
    reports::RtlUse use;
    for (const auto& [name, counts] : log.blocks) use.blocks.push_back({name, counts.onRtl, counts.onModel, counts.clockCycles});
    for (const rtl::RtlDifference& d : log.differences) {
        const auto op = std::find_if(manifest.ops.begin(), manifest.ops.end(), [&](const OpRecord& r) { return r.opId == d.opId; });
        use.differences.push_back({d.block, op == manifest.ops.end() ? "" : op->name, d.opId, d.tileId, d.modelCycles,
                                   d.rtlCycles, d.detail});
    }
    return use;
}

reports::FaultUse faultUse(const FaultOutcome& faults) {
    reports::FaultUse use{{}, faults.retriedFailures, faults.lostInterrupts, faults.correctedErrors};
    for (const auto& f : faults.injected) use.injected.push_back({std::string(hw::faultKindName(f.spec.kind)), f.spec.at, f.fired});
    return use;
}

}  // namespace

reports::RunRecord runRecord(const ArchConfig& config, const CoSimResult& result) {
    return {config,
            result.manifest,
            result.trace,
            result.job.startCycle,
            result.job.cycles,
            result.dram.bytesRead,
            result.dram.bytesWritten,
            result.dram.rowHits,
            result.dram.rowMisses,
            {},
            result.inferenceRowMisses};
}

reports::Report buildRunReport(const ArchConfig& config, const CoSimResult& result, bool timingOnly) {
    reports::Report report = reports::buildReport(runRecord(config, result));
    report.timingOnly = timingOnly;
    report.timing = result.timing;
    if (result.bucket) report.bucket = reports::BucketUse{result.bucket->symbol, result.bucket->size, result.bucket->actual};
    if (result.rtl) report.rtl = rtlUse(*result.rtl, result.manifest);
    if (result.faults) report.faults = faultUse(*result.faults);
    return report;
}

}  // namespace npusim::sim
