// Comparing two runs' reports op by op: cycles, bounds and findings that moved between them
// (two architectures, two compiler options, two versions). Ops and findings are matched by
// the ONNX node name (and finding kind).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/report.h"

namespace npusim::reports {

struct ReportDiff {
    struct Side {
        std::string label, model, arch, precision, objective;
        uint64_t totalCycles = 0;
        uint64_t dramBytes = 0;  ///< read and written during the job
        /// With a --check: the largest relative error of an output against the reference
        /// interpreter, and the lowest cosine similarity of one.
        std::optional<double> maxRelError, cosine;
        /// The run's energy (dynamic and leakage), average and peak power, and chip area
        /// (0 in a report older than the energy model: left out of the diff).
        double energyPj = 0, averageWatts = 0, peakWatts = 0, areaMm2 = 0;
    };
    struct UnitChange {
        std::string unit;
        std::optional<double> utilizationA, utilizationB;  ///< absent in a run without the unit
    };
    struct OpChange {
        std::string op, type;
        std::optional<uint64_t> cyclesA, cyclesB;  ///< absent in a run without the op
        std::string boundA, boundB;
        std::optional<double> energyA, energyB;  ///< dynamic energy, pJ (absent unless both reports have it)
        int64_t delta() const { return static_cast<int64_t>(cyclesB.value_or(0)) - static_cast<int64_t>(cyclesA.value_or(0)); }
    };
    struct FindingChange {
        std::string kind, op;
        std::optional<uint64_t> lostA, lostB;  ///< absent: the run has no such finding
        int64_t delta() const { return static_cast<int64_t>(lostB.value_or(0)) - static_cast<int64_t>(lostA.value_or(0)); }
    };
    Side a, b;
    std::vector<UnitChange> units;
    std::vector<OpChange> ops;                ///< every op of either run, largest change in cycles first
    std::vector<FindingChange> findings;      ///< findings that differ, largest change first
};

ReportDiff diffReports(const Report& a, const std::string& labelA, const Report& b, const std::string& labelB);
/// The diff for a terminal: totals (cycles, DRAM bytes, energy, power, area), units, the ops
/// whose cycles or energy changed, changed findings.
std::string diffToText(const ReportDiff& diff);
std::string diffToJson(const ReportDiff& diff);

}  // namespace npusim::reports
