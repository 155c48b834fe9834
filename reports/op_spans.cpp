// Op spans from trace events.
#include "reports/op_spans.h"

#include <algorithm>

#include "arch/isa.h"

namespace npusim::reports {

bool inWindow(const trace::Event& e, uint64_t from, uint64_t to) {
    return e.start < to && (e.end > from || (e.end == from && e.start == from));
}

std::map<uint32_t, OpSpan> opSpans(const trace::Recorder& trace, size_t firstEvent, uint64_t from, uint64_t to) {
    std::map<uint32_t, OpSpan> spans;
    const auto& events = trace.events();
    for (size_t i = firstEvent; i < events.size(); ++i) {
        const trace::Event& e = events[i];
        if (e.opId == isa::kNoOp || trace.units()[e.unit].kind == trace::UnitKind::ControlCore ||
            e.type == trace::EventType::WeightUpload || !inWindow(e, from, to)) {
            continue;
        }
        auto [it, fresh] = spans.emplace(e.opId, OpSpan{e.start, e.end});
        if (!fresh) it->second = {std::min(it->second.start, e.start), std::max(it->second.end, e.end)};
    }
    return spans;
}

}  // namespace npusim::reports
