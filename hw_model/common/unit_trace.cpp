// Recording of unit intervals.
#include "hw_model/common/unit_trace.h"

namespace npusim::hw {

UnitTrace::UnitTrace(trace::Recorder* recorder, std::string name, trace::UnitKind kind)
    : recorder_(recorder), name_(std::move(name)) {
    if (recorder_) id_ = recorder_->addUnit(name_, kind);
}

trace::Event UnitTrace::event(trace::EventType type, const isa::Command& command, uint64_t start,
                              uint64_t end) const {
    trace::Event event;
    event.type = type;
    event.unit = id_;
    event.opcode = command.opcode;
    event.kind = command.kind;
    event.opId = command.opId;
    event.tileId = command.tileId;
    event.onchipMove = command.get(isa::Field::OnchipMove) != 0;
    event.start = start;
    event.end = end;
    return event;
}

void UnitTrace::busy(const isa::Command& command, uint64_t start, uint64_t end, uint64_t bytes,
                     uint64_t operations) {
    if (!recorder_ || end < start) return;
    trace::Event e = event(trace::EventType::Command, command, start, end);
    e.bytes = bytes;
    e.operations = operations;
    recorder_->record(e);
}

void UnitTrace::commandFetch(uint64_t start, uint64_t end, uint64_t bytes) {
    if (!recorder_ || end < start) return;
    isa::Command job;  // job-level work, attributed to no op
    job.opId = isa::kNoOp;
    job.kind = isa::CommandKind::Sync;
    trace::Event e = event(trace::EventType::CommandFetch, job, start, end);
    e.bytes = bytes;
    recorder_->record(e);
}

void UnitTrace::continued(const isa::Command& command, uint64_t start, uint64_t end) {
    if (!recorder_ || end <= start) return;
    trace::Event e = event(trace::EventType::Command, command, start, end);
    e.continuation = true;
    recorder_->record(e);
}

void UnitTrace::stall(trace::StallReason reason, const isa::Command& command, uint64_t start,
                      uint64_t end) {
    if (!recorder_ || end <= start) return;
    trace::Event e = event(trace::EventType::Stall, command, start, end);
    e.reason = reason;
    recorder_->record(e);
}

}  // namespace npusim::hw
