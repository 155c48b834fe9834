// The timeline's data: busy and stalled cycles per unit and time bin, and the ops' spans.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/op_spans.h"
#include "reports/report.h"

namespace npusim::reports {
namespace {

/// Adds [start, end) to the bins of `width` cycles it covers, each the part it holds.
void addInterval(std::vector<uint64_t>& bins, uint64_t width, uint64_t start, uint64_t end) {
    for (uint64_t bin = start / width; start < end && bin < bins.size(); ++bin) {
        const uint64_t stop = std::min(end, (bin + 1) * width);
        bins[bin] += stop - start;
        start = stop;
    }
}

/// Fractions of the bin width, to 4 decimals: the plot needs no more.
nlohmann::json fractions(const std::vector<uint64_t>& cycles, uint64_t width) {
    nlohmann::json out = nlohmann::json::array();
    for (const uint64_t c : cycles) out.push_back(std::round(static_cast<double>(c) / static_cast<double>(width) * 1e4) / 1e4);
    return out;
}

}  // namespace

std::string timelineToJson(const RunRecord& run, size_t bins) {
    uint64_t last = 1;
    for (const trace::Event& e : run.trace.events()) last = std::max(last, e.end);
    const uint64_t width = std::max<uint64_t>(1, (last + bins - 1) / bins);
    const size_t units = run.trace.units().size();
    std::vector<std::vector<uint64_t>> busy(units, std::vector<uint64_t>(bins)), stalled = busy;
    for (const trace::Event& e : run.trace.events()) {
        addInterval(e.type == trace::EventType::Stall ? stalled[e.unit] : busy[e.unit], width, e.start, e.end);
    }
    const double microsecondsPerCycle = 1e6 / run.config.clockHz;
    nlohmann::json j;
    j["bins"] = bins;
    j["bin_cycles"] = width;
    j["bin_us"] = static_cast<double>(width) * microsecondsPerCycle;
    // The job's window: before it, the driver loads the model and copies the inputs in.
    j["job_start_us"] = static_cast<double>(run.jobStartCycle) * microsecondsPerCycle;
    j["job_end_us"] = static_cast<double>(run.jobStartCycle + run.jobCycles) * microsecondsPerCycle;
    j["units"] = nlohmann::json::array();
    for (size_t unit = 0; unit < units; ++unit) {
        j["units"].push_back({{"name", run.trace.units()[unit].name},
                              {"busy", fractions(busy[unit], width)},
                              {"stalled", fractions(stalled[unit], width)}});
    }
    std::map<uint32_t, std::string> names;
    for (const OpRecord& op : run.manifest.ops) names[op.opId] = op.name;
    j["ops"] = nlohmann::json::array();
    for (const auto& [opId, span] : opSpans(run.trace)) {
        const auto named = names.find(opId);
        const std::string name = named != names.end() ? named->second : std::to_string(opId);
        j["ops"].push_back({{"name", name},
                            {"start_us", static_cast<double>(span.start) * microsecondsPerCycle},
                            {"end_us", static_cast<double>(span.end) * microsecondsPerCycle}});
    }
    return j.dump() + "\n";
}

}  // namespace npusim::reports
