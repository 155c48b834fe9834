// Building the report: per-unit accounting (busy + stalls + idle = total), DRAM traffic,
// per-op cycles and bounds, and the roofline.
#include <algorithm>
#include <map>

#include "reports/op_spans.h"
#include "reports/report.h"

namespace npusim::reports {
namespace {

/// Clips an interval to the job window [start, end).
uint64_t clipped(const trace::Event& e, uint64_t start, uint64_t end) {
    const uint64_t a = std::max(e.start, start), b = std::min(e.end, end);
    return b > a ? b - a : 0;
}

std::string boundOf(const OpReport& op, uint64_t dispatch) {
    const uint64_t compute = std::max(op.tensorBusy, op.vectorBusy);
    const uint64_t memory = std::max(op.loadBusy, op.storeBusy);
    if (op.hostKernelCycles + op.hostCopyCycles > 0) return "host";
    if (op.cycles == 0) return "none";  // no commands of its own: fused into another op, or a view
    if (2 * std::max(compute, memory) >= op.cycles) {
        if (compute >= memory) return "compute";
        // DMA engines busy with moves within SRAM (resident tensors): no DRAM roof applies.
        return op.dramBytes > 0 ? "memory" : "on_chip";
    }
    if (2 * dispatch >= op.cycles) return "dispatch";
    return "sync";
}

/// The op's shape-aware roofline from the compiler's unit bounds and its DRAM roof.
ShapeBound shapeBound(const UnitBounds& units, double dramCycles, uint64_t cycles) {
    ShapeBound b{units.array, units.vector, units.load, units.store, dramCycles, "none", 0, 0};
    const std::pair<double, const char*> terms[] = {{static_cast<double>(units.array), "array"},
                                                    {static_cast<double>(units.vector), "vector"},
                                                    {static_cast<double>(units.load), "load"},
                                                    {static_cast<double>(units.store), "store"},
                                                    {dramCycles, "dram"}};
    for (const auto& [termCycles, name] : terms) {
        if (termCycles > b.attainableCycles) {
            b.attainableCycles = termCycles;
            b.limit = name;
        }
    }
    b.efficiency = cycles ? b.attainableCycles / static_cast<double>(cycles) : 0;
    return b;
}

}  // namespace

Report buildReport(const RunRecord& run) {
    Report report;
    report.model = run.manifest.modelName;
    report.arch = run.config.name;
    report.precision = run.manifest.precision;
    report.objective = run.manifest.objective;
    report.totalCycles = run.jobCycles;
    report.clockHz = run.config.clockHz;
    const uint64_t start = run.jobStartCycle, end = run.jobStartCycle + run.jobCycles;

    report.units.resize(run.trace.units().size());
    for (size_t u = 0; u < report.units.size(); ++u) report.units[u].name = run.trace.units()[u].name;
    auto isControlCore = [&](const trace::Event& e) {
        return run.trace.units()[e.unit].kind == trace::UnitKind::ControlCore;
    };

    const std::map<uint32_t, OpSpan> spans = opSpans(run.trace, 0, start, end);

    std::map<uint32_t, OpReport> ops;
    std::map<uint32_t, uint64_t> dispatch;  ///< control core work for the op inside its span
    for (const trace::Event& e : run.trace.events()) {
        if (!inWindow(e, start, end)) continue;
        const uint64_t cycles = clipped(e, start, end);
        UnitReport& unit = report.units.at(e.unit);
        if (e.type == trace::EventType::Stall) {
            unit.stalls[static_cast<size_t>(e.reason)] += cycles;
        } else {
            unit.busy += cycles;
            // A CPU segment counts once, by its kernel; a command once, by its first interval; a
            // command fetch is not a command.
            if (e.type == trace::EventType::Command ? !e.continuation : e.type == trace::EventType::HostKernel) ++unit.commands;
        }
        if (e.opId == isa::kNoOp) continue;
        OpReport& op = ops[e.opId];
        if (isControlCore(e)) {
            const auto span = spans.find(e.opId);
            if (span != spans.end() && e.type == trace::EventType::Command) {
                dispatch[e.opId] += clipped(e, span->second.start, span->second.end);
            }
        } else if (e.type == trace::EventType::Stall) {
            op.stallCycles += cycles;
            op.stalls[static_cast<size_t>(e.reason)] += cycles;
        } else if (e.type == trace::EventType::HostKernel) {
            op.hostKernelCycles += cycles;
        } else if (e.type == trace::EventType::HostCopyIn || e.type == trace::EventType::HostCopyOut) {
            op.hostCopyCycles += cycles;
            op.hostCopyBytes += e.bytes;
        } else if (e.type == trace::EventType::WeightUpload) {
            op.weightUploadCycles += cycles;
            op.weightUploadBytes += e.bytes;
        } else if (e.opcode == isa::Opcode::Gemm) {
            op.tensorBusy += cycles;
        } else if (e.opcode == isa::Opcode::Vector) {
            op.vectorBusy += cycles;
        } else if (e.opcode == isa::Opcode::DmaLoad) {
            op.loadBusy += cycles;
            if (!e.onchipMove) op.dramBytes += e.bytes;
        } else if (e.opcode == isa::Opcode::DmaStore) {
            op.storeBusy += cycles;
            if (!e.onchipMove) op.dramBytes += e.bytes;
        }
        if (e.type == trace::EventType::Command && e.kind == isa::CommandKind::Spill) {
            op.spillCount += e.continuation ? 0 : 1;
            op.spillBytes += e.bytes;
            op.spillCycles += cycles;
        } else if (e.type == trace::EventType::Command && e.kind == isa::CommandKind::Reformat) {
            op.reformatCount += e.continuation ? 0 : 1;
            op.reformatCycles += cycles;
        }
    }
    for (UnitReport& unit : report.units) {
        uint64_t stalled = 0;
        for (uint64_t s : unit.stalls) stalled += s;
        unit.idle = report.totalCycles - std::min(report.totalCycles, unit.busy + stalled);
        unit.utilization = report.totalCycles ? static_cast<double>(unit.busy) / report.totalCycles : 0;
    }

    report.dramBytesRead = run.dramBytesRead;
    report.dramBytesWritten = run.dramBytesWritten;
    report.dramRowHits = run.dramRowHits;
    report.dramRowMisses = run.dramRowMisses;
    const double seconds = static_cast<double>(report.totalCycles) / run.config.clockHz;
    const double dramBytes = static_cast<double>(run.dramBytesRead + run.dramBytesWritten);
    report.dramBytesPerCycle = report.totalCycles ? dramBytes / report.totalCycles : 0;
    report.dramGbps = seconds > 0 ? dramBytes / seconds / 1e9 : 0;

    // Roofline: each op is bound by its MACs at the array's peak for its dtype, or by its
    // compulsory DRAM traffic at full bandwidth, whichever is slower.
    report.peakDramBytesPerCycle = run.config.dram.bytesPerCycle;
    uint64_t largestMacs = 0;
    for (const OpRecord& record : run.manifest.ops) {
        OpReport op = ops[record.opId];
        op.opId = record.opId;
        op.name = record.name;
        op.type = record.type;
        op.dtype = std::string(dtypeName(record.dtype));
        op.macs = record.macs;
        op.sramBytes = record.sramBytes;
        op.minDramBytes = record.minDramBytes;
        const auto span = spans.find(record.opId);
        op.cycles = span == spans.end() ? 0 : span->second.cycles();
        op.dispatchCycles = dispatch[record.opId];
        op.commands = record.commands;
        op.commandBytes = record.commandBytes;
        op.bound = boundOf(op, op.dispatchCycles);
        const double peak = run.config.tensor.peakMacsPerCycle(record.dtype);
        op.peakMacsPerCycle = record.macs > 0 ? peak : 0.0;
        op.intensity = record.minDramBytes ? static_cast<double>(record.macs) / record.minDramBytes : 0.0;
        const double computeBound = peak > 0 ? static_cast<double>(record.macs) / peak : 0;
        const double memoryBound = static_cast<double>(record.minDramBytes) / run.config.dram.bytesPerCycle;
        op.attainableCycles = std::max(computeBound, memoryBound);
        op.efficiency = op.cycles ? op.attainableCycles / static_cast<double>(op.cycles) : 0;
        report.attainableCycles += op.attainableCycles;
        op.shape = shapeBound(record.bounds, memoryBound, op.cycles);
        report.shapeAttainableCycles += op.shape.attainableCycles;
        if (record.macs >= largestMacs && peak > 0) {
            largestMacs = record.macs;
            report.peakMacsPerCycle = peak;
        }
        report.ops.push_back(op);
    }
    report.efficiency = report.totalCycles ? report.attainableCycles / report.totalCycles : 0;
    report.shapeEfficiency = report.totalCycles ? report.shapeAttainableCycles / report.totalCycles : 0;
    report.energy = measureEnergy(run, report.ops);
    report.findings = findFailures(report, run);
    return report;
}

}  // namespace npusim::reports

namespace npusim::reports {

std::vector<std::string> boundViolations(const Report& report) {
    std::vector<std::string> lines;
    const auto check = [&](const std::string& what, uint64_t cycles, double plain, double shaped) {
        for (const auto& [name, bound] : {std::pair{"roofline", plain}, std::pair{"shape-aware bound", shaped}}) {
            if (bound > static_cast<double>(cycles)) {
                lines.push_back(what + " took " + std::to_string(cycles) + " cycles, fewer than its " + name + " of " +
                                std::to_string(bound));
            }
        }
    };
    for (const OpReport& op : report.ops) {
        if (op.cycles > 0 && op.bound != "host") check("op " + op.name, op.cycles, op.attainableCycles, op.shape.attainableCycles);
    }
    check("the run", report.totalCycles, report.attainableCycles, report.shapeAttainableCycles);
    return lines;
}

}  // namespace npusim::reports
