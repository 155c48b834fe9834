#include "cli/sweep/sweep_baseline.h"

#include <algorithm>
#include <cmath>

namespace npusim::cli {

BaselineComparison compareWithBaseline(const SweepDatabase& current, const SweepDatabase& baseline,
                                       const std::vector<std::string>& keys, double tolerance) {
    BaselineComparison result;
    for (const std::string& key : keys) {
        const std::optional<SweepRow> row = current.row(key);
        if (!row || row->status != "ok") continue;
        const std::optional<SweepRow> base = baseline.row(key);
        if (!base || base->status != "ok" || base->totalCycles == 0) {
            ++result.missing;
            continue;
        }
        ++result.compared;
        const double change = (static_cast<double>(row->totalCycles) - static_cast<double>(base->totalCycles)) /
                              static_cast<double>(base->totalCycles);
        if (std::abs(change) > tolerance) result.moved.push_back({*row, base->totalCycles, change});
    }
    std::stable_sort(result.moved.begin(), result.moved.end(),
                     [](const auto& a, const auto& b) { return std::abs(a.change) > std::abs(b.change); });
    return result;
}

}  // namespace npusim::cli
