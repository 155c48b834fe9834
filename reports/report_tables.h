// The sections of the human-readable reports as plain tables, so that report.md and
// report.html show the same content: the summary, top findings, units, stall breakdown, ops.
#pragma once

#include <string>
#include <vector>

#include "reports/report.h"

namespace npusim::reports {

/// How many findings and stalled ops the readable reports list (report.json has them all).
inline constexpr size_t kTopFindings = 10;
inline constexpr size_t kTopStalledOps = 10;
/// Ops the command-streams table lists: those with the most commands.
inline constexpr size_t kTopCommandOps = 10;

struct Table {
    std::vector<std::string> headers;
    std::vector<bool> numeric;  ///< per column: right-aligned
    std::vector<std::vector<std::string>> rows;
    std::string note;  ///< a line under the table ("and 12 more findings in report.json"), or empty
};

/// The summary lines: cycles and time, roofline, DRAM, timing, bucket, RTL, check.
std::vector<std::string> summaryLines(const Report& report);
/// The findings that cost most, at most `limit`.
Table findingsTable(const Report& report, size_t limit);
/// Busy, stalled, idle and utilisation per unit.
Table unitsTable(const Report& report);
/// Dynamic and leakage energy and area per unit.
Table energyTable(const Report& report);
/// Stall cycles per unit by reason, and the ops that stalled most.
Table unitStallsTable(const Report& report);
Table opStallsTable(const Report& report, size_t limit);
/// Per op: cycles, bound, work and traffic, and its roofline.
Table opsTable(const Report& report);
/// The `limit` ops with the most commands: commands, descriptor bytes, dispatch cycles.
Table commandStreamsTable(const Report& report, size_t limit);

/// A generation's figures (Report::generation; empty without one): first token, per token,
/// throughput, cache, DRAM per token, the decode step against its roofline, the plans' bounds.
std::vector<std::string> generationLines(const Report& report);
/// Per request: first token, per token, tokens per second. Per step: phase, cycles, DRAM, tokens.
Table generationRequestsTable(const Report& report);
Table generationStepsTable(const Report& report);

}  // namespace npusim::reports
