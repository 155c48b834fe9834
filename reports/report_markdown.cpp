// report.md: what a person reads first: summary, findings, units, ops.
#include <cstdio>
#include <sstream>

#include "reports/report.h"

namespace npusim::reports {
namespace {

std::string percent(double fraction) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f%%", fraction * 100);
    return buffer;
}

std::string number(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
}

}  // namespace

std::string reportToMarkdown(const Report& r) {
    std::ostringstream out;
    out << "# npusim report: " << r.model << " on " << r.arch << "\n\n";
    out << "- total: " << r.totalCycles << " cycles ("
        << number(static_cast<double>(r.totalCycles) / r.clockHz * 1e6) << " us at "
        << number(r.clockHz / 1e6) << " MHz)\n";
    out << "- roofline: " << number(r.attainableCycles) << " attainable cycles, efficiency "
        << percent(r.efficiency) << "\n";
    out << "- DRAM: " << r.dramBytesRead << " bytes read, " << r.dramBytesWritten
        << " bytes written, " << number(r.dramGbps) << " GB/s achieved\n";
    if (r.bucket) {
        out << "- shape bucket: " << r.bucket->symbol << "=" << r.bucket->size << " (actual " << r.bucket->actual
            << ", padded)\n";
    }
    out << "- timing on the host's clock: cold " << r.timing.cold.cycles << " cycles ("
        << number(r.timing.cold.hostSeconds * 1e3) << " ms host)";
    if (r.timing.warm && r.timing.steady) {
        out << ", warm " << r.timing.warm->cycles << " (" << number(r.timing.warm->hostSeconds * 1e3)
            << " ms), steady " << r.timing.steady->cycles << " (" << number(r.timing.steady->hostSeconds * 1e3)
            << " ms, median of " << r.timing.repeat << ")";
    }
    out << "\n";
    if (r.rtl) {
        out << "- RTL co-simulation:";
        for (const RtlUse::Block& b : r.rtl->blocks) {
            out << " " << b.name << " (" << b.onRtl << " commands on the RTL, " << b.onModel << " on the model)";
        }
        out << "; " << r.rtl->differences.size() << " commands whose cycles differ from the timing model\n";
    }
    if (r.check) {
        out << "- check: " << (r.check->passed ? "passed" : "FAILED") << " (max abs error "
            << r.check->maxAbsError << ")\n";
    }
    if (!r.findings.empty()) {
        out << "\n## Findings\n\n| kind | op | cycles lost | what happened | what would help |\n"
            << "|---|---|---:|---|---|\n";
        for (const Finding& f : r.findings) {
            out << "| " << f.kind << " | " << f.op << " | " << f.cycles << " | " << f.message << " | " << f.hint
                << " |\n";
        }
    }
    out << "\n## Units\n\n| unit | busy | stalled | idle | utilization |\n|---|---:|---:|---:|---:|\n";
    for (const UnitReport& unit : r.units) {
        uint64_t stalled = 0;
        for (uint64_t s : unit.stalls) stalled += s;
        out << "| " << unit.name << " | " << unit.busy << " | " << stalled << " | " << unit.idle
            << " | " << percent(unit.utilization) << " |\n";
    }
    out << "\n## Ops\n\n| op | type | cycles | MACs | DRAM bytes | bound | efficiency |\n"
        << "|---|---|---:|---:|---:|---|---:|\n";
    for (const OpReport& op : r.ops) {
        out << "| " << op.name << " | " << op.type << " " << op.dtype << " | " << op.cycles << " | "
            << op.macs << " | " << op.dramBytes << " | " << op.bound << " | " << percent(op.efficiency)
            << " |\n";
    }
    return out.str();
}

}  // namespace npusim::reports
