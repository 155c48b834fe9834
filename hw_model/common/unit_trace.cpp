// Recording of unit intervals.
#include "hw_model/common/unit_trace.h"

namespace npusim::hw {

UnitTrace::UnitTrace(trace::Recorder* recorder, std::string name, trace::UnitKind kind)
    : recorder_(recorder), name_(std::move(name)) {
    if (recorder_) id_ = recorder_->addUnit(name_, kind);
}

void UnitTrace::busy(const isa::Command& command, uint64_t start, uint64_t end, uint64_t bytes,
                     uint64_t macs) {
    if (!recorder_ || end < start) return;
    trace::Event event;
    event.type = trace::EventType::Command;
    event.unit = id_;
    event.opcode = command.opcode;
    event.kind = command.kind;
    event.opId = command.opId;
    event.tileId = command.tileId;
    event.start = start;
    event.end = end;
    event.bytes = bytes;
    event.macs = macs;
    recorder_->record(event);
}

void UnitTrace::stall(trace::StallReason reason, const isa::Command& command, uint64_t start,
                      uint64_t end) {
    if (!recorder_ || end <= start) return;
    trace::Event event;
    event.type = trace::EventType::Stall;
    event.unit = id_;
    event.opcode = command.opcode;
    event.kind = command.kind;
    event.reason = reason;
    event.opId = command.opId;
    event.tileId = command.tileId;
    event.start = start;
    event.end = end;
    recorder_->record(event);
}

}  // namespace npusim::hw
