// trace.json in Chrome trace-event format: one track (tid) per unit (and the host CPU, when the
// run has CPU segments), complete events ("X") named by op and command (host: copy_in, kernel,
// copy_out), timestamps in microseconds of simulated time; counter tracks of the DRAM
// bandwidth the DMAs use and of the SRAM the compiler's plan has in use. Written an event a line,
// as it is built: a run of millions of commands never holds its trace as JSON in memory.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>

#include <nlohmann/json.hpp>

#include "reports/op_spans.h"
#include "reports/report.h"

namespace npusim::reports {

namespace {

using Json = nlohmann::ordered_json;

/// Appends a number as JSON: the shortest text that reads back as the same value.
template <class T>
void appendNumber(std::string& out, T value) {
    char text[32];
    const auto [end, error] = std::to_chars(text, text + sizeof text, value);
    out.append(text, end);
}

/// Appends one complete event. Events are written without a JSON value per event: a run of
/// millions of commands writes its trace at the speed of formatting numbers.
void appendSlice(std::string& out, const trace::Event& e, std::string_view quotedName, std::string_view category,
                 double microsecondsPerCycle) {
    out += R"({"ph":"X","pid":1,"tid":)";
    appendNumber(out, e.unit);
    out += R"(,"name":)";
    out += quotedName;
    out += R"(,"cat":")";
    out += category;
    out += R"(","ts":)";
    appendNumber(out, static_cast<double>(e.start) * microsecondsPerCycle);
    out += R"(,"dur":)";
    appendNumber(out, static_cast<double>(e.end - e.start) * microsecondsPerCycle);
    out += R"(,"args":{"op_id":)";
    if (e.opId == isa::kNoOp) {
        out += "null";  // job-level work of no op
    } else {
        appendNumber(out, e.opId);
    }
    out += R"(,"tile_id":)";
    appendNumber(out, e.tileId);
    out += R"(,"start_cycle":)";
    appendNumber(out, e.start);
    out += R"(,"cycles":)";
    appendNumber(out, e.end - e.start);
    out += R"(,"bytes":)";
    appendNumber(out, e.bytes);
    out += R"(,"operations":)";
    appendNumber(out, e.operations);
    out += "}}";
}

/// The end of the trace's last event.
uint64_t runEndOf(const RunRecord& run) {
    uint64_t end = 0;
    for (const trace::Event& e : run.trace.events()) end = std::max(end, e.end);
    return end;
}

}  // namespace

void writeChromeTrace(std::ostream& out, const RunRecord& run) {
    out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    bool opening = true;
    const auto emit = [&](const Json& event) {
        out << (opening ? "\n" : ",\n") << event.dump();
        opening = false;
    };
    const double microsecondsPerCycle = 1e6 / run.config.clockHz;
    std::vector<std::string> opNames;
    for (const OpRecord& op : run.manifest.ops) {
        if (opNames.size() <= op.opId) opNames.resize(op.opId + 1);
        opNames[op.opId] = op.name;
    }
    for (size_t unit = 0; unit < run.trace.units().size(); ++unit) {
        emit({{"ph", "M"}, {"pid", 1}, {"tid", unit}, {"name", "thread_name"},
              {"args", {{"name", run.trace.units()[unit].name}}}});
    }
    // Event names, quoted and escaped once per (op, opcode or stall reason) rather than per event.
    std::map<std::tuple<uint32_t, int, int, bool>, std::string> quotedNames;
    const auto quotedName = [&](const trace::Event& e) -> const std::string& {
        const int what = e.type == trace::EventType::Command ? static_cast<int>(e.opcode)
                         : e.type == trace::EventType::Stall ? static_cast<int>(e.reason)
                                                             : 0;
        auto [slot, added] = quotedNames.try_emplace({e.opId, static_cast<int>(e.type), what, e.continuation});
        if (added) {
            const std::string op = e.opId < opNames.size() ? opNames[e.opId] : "job";
            std::string name = op + " " + std::string(isa::opcodeName(e.opcode)) + (e.continuation ? " (drain)" : "");
            if (e.type == trace::EventType::Stall) {
                name = op + " stall:" + std::string(trace::stallReasonName(e.reason));
            } else if (e.type == trace::EventType::CommandFetch) {
                name = "command buffer fetch";
            } else if (e.type != trace::EventType::Command) {  // a CPU segment on the host's track
                name = op + " " + std::string(trace::eventTypeName(e.type));
            }
            slot->second = Json(name).dump();
        }
        return slot->second;
    };
    std::string line;
    for (const trace::Event& e : run.trace.events()) {
        std::string category(isa::commandKindName(e.kind));
        if (e.type == trace::EventType::Stall) {
            category = "stall";
        } else if (e.type == trace::EventType::CommandFetch) {
            category = "command_fetch";
        } else if (e.type != trace::EventType::Command) {
            category = "host_" + std::string(trace::eventTypeName(e.type));
        }
        line.assign(opening ? "\n" : ",\n");
        opening = false;
        appendSlice(line, e, quotedName(e), category, microsecondsPerCycle);
        out.write(line.data(), static_cast<std::streamsize>(line.size()));
    }
    // The run's own slices (a generation's steps) on a track after the units'.
    if (!run.slices.empty()) {
        const size_t track = run.trace.units().size();
        emit({{"ph", "M"}, {"pid", 1}, {"tid", track}, {"name", "thread_name"}, {"args", {{"name", "steps"}}}});
        for (const TraceSlice& slice : run.slices) {
            emit({{"ph", "X"}, {"pid", 1}, {"tid", track}, {"name", slice.name}, {"cat", "step"},
                  {"ts", static_cast<double>(slice.start) * microsecondsPerCycle},
                  {"dur", static_cast<double>(slice.end - slice.start) * microsecondsPerCycle}});
        }
    }
    // A counter track: DRAM bandwidth the NPU's DMAs used, per window of the run (each burst's
    // bytes spread evenly over its command's interval).
    uint64_t first = UINT64_MAX, last = 0;
    for (const trace::Event& e : run.trace.events()) {
        if (e.type != trace::EventType::Command || e.onchipMove || e.bytes == 0) continue;
        if (e.opcode != isa::Opcode::DmaLoad && e.opcode != isa::Opcode::DmaStore) continue;
        first = std::min(first, e.start);
        last = std::max(last, e.end);
    }
    if (first < last) {
        const uint64_t window = std::max<uint64_t>(64, (last - first + 255) / 256);
        std::vector<double> bytes((last - first + window - 1) / window, 0.0);
        for (const trace::Event& e : run.trace.events()) {
            if (e.type != trace::EventType::Command || e.onchipMove || e.bytes == 0 || e.end <= e.start) continue;
            if (e.opcode != isa::Opcode::DmaLoad && e.opcode != isa::Opcode::DmaStore) continue;
            const double perCycle = static_cast<double>(e.bytes) / static_cast<double>(e.end - e.start);
            for (uint64_t w = (e.start - first) / window; w * window + first < e.end; ++w) {
                const uint64_t a = std::max(e.start, first + w * window), b = std::min(e.end, first + (w + 1) * window);
                bytes[w] += perCycle * static_cast<double>(b - a);
            }
        }
        const double secondsPerWindow = static_cast<double>(window) / run.config.clockHz;
        for (size_t w = 0; w <= bytes.size(); ++w) {
            const double gbps = w < bytes.size() ? bytes[w] / secondsPerWindow / 1e9 : 0.0;
            emit({{"ph", "C"},
                  {"pid", 1},
                  {"name", "DRAM bandwidth"},
                  {"ts", static_cast<double>(first + w * window) * microsecondsPerCycle},
                  {"args", {{"GB/s", gbps}}}});
        }
    }
    // A counter track: the NPU's power, each window's dynamic energy over its time plus leakage
    // (reports' energy model, docs/REPORTS.md), in 256 windows of the whole trace or more.
    const uint64_t runEnd = runEndOf(run);
    if (runEnd > 0) {
        const uint64_t window = std::max<uint64_t>(64, (runEnd + 255) / 256);
        const std::vector<double> watts = powerWindows(run, 0, runEnd, window);
        for (size_t w = 0; w <= watts.size(); ++w) {
            emit({{"ph", "C"},
                  {"pid", 1},
                  {"name", "power"},
                  {"ts", static_cast<double>(w * window) * microsecondsPerCycle},
                  {"args", {{"W", w < watts.size() ? watts[w] : 0.0}}}});
        }
    }
    // A counter track: SRAM in use, stepping to each op's planned occupancy as its first command
    // starts (ops overlap in a pipeline: the op that started last sets the value).
    const std::map<uint32_t, OpSpan> spans = opSpans(run.trace);
    std::vector<std::pair<uint64_t, uint64_t>> occupancy;  // (cycle, bytes)
    for (const OpRecord& op : run.manifest.ops) {
        if (const auto span = spans.find(op.opId); span != spans.end()) occupancy.emplace_back(span->second.start, op.sramBytes);
    }
    std::stable_sort(occupancy.begin(), occupancy.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (!occupancy.empty()) occupancy.emplace_back(runEnd, 0);
    for (const auto& [cycle, bytes] : occupancy) {
        emit({{"ph", "C"},
              {"pid", 1},
              {"name", "SRAM occupancy"},
              {"ts", static_cast<double>(cycle) * microsecondsPerCycle},
              {"args", {{"bytes", bytes}}}});
    }
    out << "\n]}\n";
}

}  // namespace npusim::reports
