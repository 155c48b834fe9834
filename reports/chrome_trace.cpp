// trace.json in Chrome trace-event format: one track (tid) per unit (and the host CPU, when the
// run has CPU segments), complete events ("X") named by op and command (host: copy_in, kernel,
// copy_out), timestamps in microseconds of simulated time.
#include <nlohmann/json.hpp>

#include "reports/report.h"

namespace npusim::reports {

std::string traceToChromeJson(const RunRecord& run) {
    using Json = nlohmann::ordered_json;
    const double microsecondsPerCycle = 1e6 / run.config.clockHz;
    std::vector<std::string> opNames;
    for (const OpRecord& op : run.manifest.ops) {
        if (opNames.size() <= op.opId) opNames.resize(op.opId + 1);
        opNames[op.opId] = op.name;
    }
    Json events = Json::array();
    for (size_t unit = 0; unit < run.trace.units().size(); ++unit) {
        events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", unit}, {"name", "thread_name"},
                          {"args", {{"name", run.trace.units()[unit].name}}}});
    }
    for (const trace::Event& e : run.trace.events()) {
        const std::string op = e.opId < opNames.size() ? opNames[e.opId] : "job";
        std::string name = op + " " + std::string(isa::opcodeName(e.opcode)) + (e.continuation ? " (drain)" : "");
        std::string category(isa::commandKindName(e.kind));
        if (e.type == trace::EventType::Stall) {
            name = op + " stall:" + std::string(trace::stallReasonName(e.reason));
            category = "stall";
        } else if (e.type != trace::EventType::Command) {  // a CPU segment on the host's track
            category = "host_" + std::string(trace::eventTypeName(e.type));
            name = op + " " + std::string(trace::eventTypeName(e.type));
        }
        events.push_back({{"ph", "X"},
                          {"pid", 1},
                          {"tid", e.unit},
                          {"name", name},
                          {"cat", category},
                          {"ts", static_cast<double>(e.start) * microsecondsPerCycle},
                          {"dur", static_cast<double>(e.end - e.start) * microsecondsPerCycle},
                          {"args", {{"op_id", e.opId}, {"tile_id", e.tileId}, {"start_cycle", e.start},
                                    {"cycles", e.end - e.start}, {"bytes", e.bytes}, {"macs", e.macs}}}});
    }
    Json trace;
    trace["traceEvents"] = events;
    trace["displayTimeUnit"] = "ns";
    return trace.dump() + "\n";
}

}  // namespace npusim::reports
