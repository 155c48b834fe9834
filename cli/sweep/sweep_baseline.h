// Regression bands: the points of a sweep whose cycles moved beyond a tolerance against a
// baseline database (an earlier sweep of the same spec, e.g. by another npusim version).
#pragma once

#include <vector>

#include "cli/sweep/sweep_db.h"

namespace npusim::cli {

struct BaselineComparison {
    struct Moved {
        SweepRow row;
        uint64_t baselineCycles = 0;
        double change = 0;  ///< (cycles - baseline) / baseline
    };
    std::vector<Moved> moved;   ///< beyond the tolerance, largest change first
    size_t compared = 0;        ///< points both databases hold with status ok
    size_t missing = 0;         ///< points the baseline does not hold (or not ok)
};

/// Compares the rows with these keys in `current` with the same points in `baseline`.
BaselineComparison compareWithBaseline(const SweepDatabase& current, const SweepDatabase& baseline,
                                       const std::vector<std::string>& keys, double tolerance);

}  // namespace npusim::cli
