#include "reports/report_tables.h"

#include <algorithm>
#include <numeric>

#include "arch/isa.h"
#include "reports/text_format.h"

namespace npusim::reports {
namespace {

uint64_t sum(const std::array<uint64_t, trace::kStallReasonCount>& stalls) {
    return std::accumulate(stalls.begin(), stalls.end(), uint64_t{0});
}

std::string reasonName(int reason) { return std::string(trace::stallReasonName(static_cast<trace::StallReason>(reason))); }

std::string milliseconds(double seconds) { return fixedText(seconds * 1e3, 1) + " ms"; }

}  // namespace

std::vector<std::string> summaryLines(const Report& r) {
    std::vector<std::string> lines;
    const double microseconds = r.clockHz > 0 ? static_cast<double>(r.totalCycles) / r.clockHz * 1e6 : 0;
    lines.push_back("total: " + std::to_string(r.totalCycles) + " cycles (" + fixedText(microseconds, 1) + " us at " +
                    wholeText(r.clockHz / 1e6) + " MHz)");
    lines.push_back("roofline: " + wholeText(r.attainableCycles) + " attainable cycles, efficiency " +
                    percentText(r.efficiency) + "; shape-aware: " + wholeText(r.shapeAttainableCycles) +
                    " attainable cycles, efficiency " + percentText(r.shapeEfficiency));
    // The plain roofline has no roof for on-chip work without MACs (pooling, elementwise ops
    // on resident tensors): it bounds those ops by 0 cycles, and says so.
    uint64_t unbounded = 0;
    std::string names;
    for (const OpReport& op : r.ops) {
        if (op.cycles == 0 || op.attainableCycles > 0 || op.bound == "host") continue;
        unbounded += op.cycles;
        names += (names.empty() ? "" : ", ") + op.name;
    }
    if (unbounded > 0) {
        lines.push_back("the plain roofline bounds " + wholeText(static_cast<double>(unbounded)) +
                        " cycles of ops without MACs or DRAM traffic by 0 (" +
                        (names.size() > 120 ? names.substr(0, 117) + "..." : names) +
                        "); the shape-aware bound counts their vector and DMA time");
    }
    lines.push_back("DRAM: " + bytesText(r.dramBytesRead) + " read, " + bytesText(r.dramBytesWritten) + " written, " +
                    fixedText(r.dramGbps, 2) + " GB/s achieved");
    if (!r.energy.units.empty()) {
        const EnergyReport& e = r.energy;
        const std::string merit = e.macs ? ", " + fixedText(e.pjPerMac(), 2) + " pJ/MAC, " + fixedText(e.topsPerWatt(), 2) + " TOPS/W" : "";
        lines.push_back(std::string(r.objective == "cycles" ? "" : "schedules chosen for " + r.objective + "; ") + "energy: " +
                        energyText(e.totalPj()) + " (dynamic " + energyText(e.dynamicPj) + ", leakage " + energyText(e.leakagePj) +
                        "); power " + fixedText(e.averageWatts, 3) + " W average, " + fixedText(e.peakWatts, 3) + " W peak over " +
                        std::to_string(e.windowCycles) + "-cycle windows; area " + fixedText(e.areaMm2, 2) + " mm2 at " +
                        wholeText(e.technologyNm) + " nm" + merit);
    }
    uint64_t lost = 0;
    for (const Finding& f : r.findings) lost += f.cycles;
    lines.push_back("findings: " + std::to_string(r.findings.size()) +
                    (r.findings.empty() ? "" : ", " + std::to_string(lost) + " cycles lost in all (they may overlap)"));
    if (r.bucket) {
        lines.push_back("shape bucket: " + r.bucket->symbol + "=" + std::to_string(r.bucket->size) + " (actual " +
                        std::to_string(r.bucket->actual) + ", padded)");
    }
    std::string timing = "timing on the host's clock: cold " + std::to_string(r.timing.cold.cycles) + " cycles (" +
                         milliseconds(r.timing.cold.hostSeconds) + " host)";
    if (r.timing.warm && r.timing.steady) {
        timing += ", warm " + std::to_string(r.timing.warm->cycles) + " (" + milliseconds(r.timing.warm->hostSeconds) +
                  "), steady " + std::to_string(r.timing.steady->cycles) + " (" +
                  milliseconds(r.timing.steady->hostSeconds) + ", median of " + std::to_string(r.timing.repeat) + ")";
    }
    lines.push_back(timing);
    if (r.rtl) {
        std::string rtl = "RTL co-simulation:";
        for (const RtlUse::Block& b : r.rtl->blocks) {
            rtl += " " + b.name + " (" + std::to_string(b.onRtl) + " commands on the RTL, " + std::to_string(b.onModel) +
                   " on the model)";
        }
        lines.push_back(rtl + "; " + std::to_string(r.rtl->differences.size()) +
                        " commands whose cycles differ from the timing model");
    }
    if (r.faults) {
        std::string faults = "injected faults:";
        for (const FaultUse::Injected& f : r.faults->injected) {
            faults += " " + f.kind + "@" + std::to_string(f.at) + (f.fired ? " (fired)" : " (never reached)");
        }
        faults += "; " + std::to_string(r.faults->jobFailures.size()) + " failed jobs run again, " +
                  std::to_string(r.faults->lostInterrupts) + " lost interrupts found by polling, " +
                  std::to_string(r.faults->correctedErrors) + " DRAM errors corrected by ECC";
        lines.push_back(faults);
    }
    if (r.check && !r.check->program) {
        lines.push_back(std::string("check: ") + (r.check->passed ? "passed" : "FAILED") + " (max abs error " +
                        fixedText(r.check->maxAbsError, 6) + ")");
    } else if (r.check) {
        lines.push_back(std::string("check: ") + (r.check->passed ? "passed" : "FAILED") + "; against the compiled " +
                        r.check->precision + " program: max abs error " + fixedText(r.check->program->maxAbsError, 6));
        for (const OutputAccuracy& a : r.check->outputs) {
            std::string line = r.check->precision + " against the fp32 reference, " + a.name + ": max abs error " +
                               fixedText(a.maxAbsError, 6) + ", max rel error " + fixedText(a.maxRelError, 6) + ", SNR " +
                               fixedText(a.snrDb, 1) + " dB, cosine " + fixedText(a.cosine, 6);
            if (a.top1 >= 0) {
                line += ", top-1 " + fixedText(a.top1 * 100, 1) + "%, top-5 " + fixedText(a.top5 * 100, 1) + "%";
            }
            lines.push_back(line);
        }
    }
    if (r.check && !r.check->perOp.empty()) {
        lines.push_back("per op, the compiled program against the reference: " +
                        (r.check->firstDrift.empty() ? "no op result drifts past " + fixedText(r.check->driftTolerance * 100, 2) + "%"
                                                     : "first past " + fixedText(r.check->driftTolerance * 100, 2) + "% at op " +
                                                           r.check->firstDrift));
    }
    if (r.timingOnly) lines.push_back("timing only: no values were computed");
    return lines;
}

Table findingsTable(const Report& r, size_t limit) {
    Table t{{"kind", "op", "cycles lost", "what happened", "what would help"}, {false, false, true, false, false}, {}, ""};
    for (size_t i = 0; i < r.findings.size() && i < limit; ++i) {
        const Finding& f = r.findings[i];
        t.rows.push_back({f.kind, f.op, std::to_string(f.cycles), f.message, f.hint});
    }
    if (r.findings.size() > limit) {
        t.note = "and " + std::to_string(r.findings.size() - limit) + " more findings in report.json";
    }
    return t;
}

Table unitsTable(const Report& r) {
    Table t{{"unit", "commands", "busy", "stalled", "idle", "utilization"}, {false, true, true, true, true, true}, {}, ""};
    for (const UnitReport& u : r.units) {
        t.rows.push_back({u.name, std::to_string(u.commands), std::to_string(u.busy), std::to_string(sum(u.stalls)),
                          std::to_string(u.idle), percentText(u.utilization)});
    }
    return t;
}

Table energyTable(const Report& r) {
    Table t{{"unit", "dynamic", "leakage", "total", "share", "area mm2"}, {false, true, true, true, true, true}, {}, ""};
    const double total = r.energy.totalPj();
    for (const UnitEnergy& u : r.energy.units) {
        const double sum = u.dynamicPj + u.leakagePj;
        t.rows.push_back({u.unit, energyText(u.dynamicPj), energyText(u.leakagePj), energyText(sum),
                          percentText(total > 0 ? sum / total : 0), u.areaMm2 > 0 ? fixedText(u.areaMm2, 3) : "-"});
    }
    if (!t.rows.empty()) {
        t.note = "sram: the scratchpad and the accumulator memory; dram: off chip, dynamic only. Energies per action: "
                 "the arch config's energy table (docs/ARCH_CONFIG.md).";
    }
    return t;
}

Table unitStallsTable(const Report& r) {
    Table t{{"unit"}, {false}, {}, ""};
    for (int reason = 0; reason < trace::kStallReasonCount; ++reason) {
        t.headers.push_back(reasonName(reason));
        t.numeric.push_back(true);
    }
    t.headers.push_back("stalled");
    t.numeric.push_back(true);
    for (const UnitReport& u : r.units) {
        std::vector<std::string> row{u.name};
        for (uint64_t cycles : u.stalls) row.push_back(std::to_string(cycles));
        const uint64_t stalled = sum(u.stalls);
        row.push_back(std::to_string(stalled) + " (" + percentText(r.totalCycles ? static_cast<double>(stalled) / r.totalCycles : 0) + ")");
        t.rows.push_back(std::move(row));
    }
    return t;
}

Table opStallsTable(const Report& r, size_t limit) {
    std::vector<const OpReport*> ops;
    for (const OpReport& op : r.ops) {
        if (op.stallCycles > 0) ops.push_back(&op);
    }
    std::stable_sort(ops.begin(), ops.end(), [](const OpReport* a, const OpReport* b) { return a->stallCycles > b->stallCycles; });
    Table t{{"op", "cycles", "stall cycles (all units)", "by reason"}, {false, true, true, false}, {}, ""};
    for (size_t i = 0; i < ops.size() && i < limit; ++i) {
        std::string reasons;
        for (int reason = 0; reason < trace::kStallReasonCount; ++reason) {
            const uint64_t cycles = ops[i]->stalls[static_cast<size_t>(reason)];
            if (cycles > 0) reasons += (reasons.empty() ? "" : ", ") + reasonName(reason) + " " + std::to_string(cycles);
        }
        t.rows.push_back({ops[i]->name, std::to_string(ops[i]->cycles), std::to_string(ops[i]->stallCycles), reasons});
    }
    if (ops.size() > limit) t.note = "and " + std::to_string(ops.size() - limit) + " more ops with stalls in report.json";
    return t;
}

Table commandStreamsTable(const Report& r, size_t limit) {
    std::vector<const OpReport*> ops;
    for (const OpReport& op : r.ops) {
        if (op.commands > 0) ops.push_back(&op);
    }
    std::stable_sort(ops.begin(), ops.end(), [](const OpReport* a, const OpReport* b) { return a->commands > b->commands; });
    Table t{{"op", "commands", "descriptor bytes", "commands per descriptor", "dispatch cycles", "cycles"},
            {false, true, true, true, true, true},
            {},
            ""};
    for (size_t i = 0; i < ops.size() && i < limit; ++i) {
        const OpReport& op = *ops[i];
        const double descriptors = static_cast<double>(op.commandBytes) / isa::kCommandBytes;
        t.rows.push_back({op.name, std::to_string(op.commands), std::to_string(op.commandBytes),
                          descriptors > 0 ? fixedText(static_cast<double>(op.commands) / descriptors, 1) : "-",
                          std::to_string(op.dispatchCycles), std::to_string(op.cycles)});
    }
    if (ops.size() > limit) t.note = "and " + std::to_string(ops.size() - limit) + " more ops in report.json";
    return t;
}

Table opsTable(const Report& r) {
    Table t{{"op", "type", "cycles", "bound", "MACs", "DRAM bytes", "SRAM in use", "MACs/min byte", "attainable",
             "efficiency", "shape bound", "limit", "shape efficiency", "energy", "pJ/MAC"},
            {false, false, true, false, true, true, true, true, true, true, true, false, true, true, true},
            {},
            ""};
    uint64_t spans = 0;
    for (const OpReport& op : r.ops) {
        // An op without commands (a view, a fused op) or without a bound has no efficiency.
        const auto efficiency = [&](double attainable, double value) {
            return op.cycles > 0 && attainable > 0 ? percentText(value) : std::string("-");
        };
        t.rows.push_back({op.name, op.type + " " + op.dtype, std::to_string(op.cycles), op.cycles > 0 ? op.bound : "-",
                          std::to_string(op.macs), std::to_string(op.dramBytes), bytesText(op.sramBytes),
                          op.intensity > 0 ? fixedText(op.intensity, 1) : "-", wholeText(op.attainableCycles),
                          efficiency(op.attainableCycles, op.efficiency), wholeText(op.shape.attainableCycles), op.shape.limit,
                          efficiency(op.shape.attainableCycles, op.shape.efficiency),
                          op.energyPj > 0 ? energyText(op.energyPj) : "-",
                          op.macs > 0 ? fixedText(op.energyPj / static_cast<double>(op.macs), 2) : "-"});
        spans += op.cycles;
    }
    // Two figures readers misread: intensity counts compulsory bytes, and op spans overlap.
    t.note = "MACs/min byte: MACs per compulsory DRAM byte (the roofline's intensity; DRAM bytes are those moved). "
             "An op's cycles run from its first command to its last; ops overlap, so theirs add to " +
             wholeText(static_cast<double>(spans)) + " of the run's " + wholeText(static_cast<double>(r.totalCycles)) + ".";
    return t;
}

}  // namespace npusim::reports
