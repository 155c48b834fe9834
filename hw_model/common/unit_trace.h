// A unit's timeline: busy and stall intervals recorded as trace events, when a recorder is
// bound in. Units never write report files; they only describe their time.
#pragma once

#include <cstdint>
#include <string>

#include "arch/isa.h"
#include "arch/trace_event.h"

namespace npusim::hw {

class UnitTrace {
public:
    /// `recorder` may be null: tracing is then off and recording costs nothing.
    UnitTrace(trace::Recorder* recorder, std::string name, trace::UnitKind kind);

    const std::string& name() const { return name_; }
    /// The unit's index in the recorder (0 when tracing is off), used to tag accesses.
    uint16_t id() const { return id_; }

    /// [start, end) cycles spent executing `command`, which moved `bytes` and did `operations`
    /// (trace::Event::operations).
    void busy(const isa::Command& command, uint64_t start, uint64_t end, uint64_t bytes = 0,
              uint64_t operations = 0);
    /// [start, end) reading `bytes` of a job's command buffer (the control core).
    void commandFetch(uint64_t start, uint64_t end, uint64_t bytes);
    /// [start, end) more busy cycles of a command recorded earlier (a pipeline draining).
    void continued(const isa::Command& command, uint64_t start, uint64_t end);
    /// [start, end) cycles the unit waited, for `command`.
    void stall(trace::StallReason reason, const isa::Command& command, uint64_t start, uint64_t end);

private:
    trace::Event event(trace::EventType type, const isa::Command& command, uint64_t start,
                       uint64_t end) const;

    trace::Recorder* recorder_;
    std::string name_;
    uint16_t id_ = 0;
};

}  // namespace npusim::hw
