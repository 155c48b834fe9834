// Trace-event records: what every hardware unit reports about its time, and the one stall
// taxonomy shared by all units (docs/REPORTS.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arch/isa.h"

namespace npusim::trace {

/// Why a unit waited. Every unit uses these and only these.
enum class StallReason : uint8_t {
    SemaphoreWait = 0,     ///< a queue blocked on SEM_WAIT for another queue's signal
    QueueFull = 1,         ///< the control core could not dispatch: the unit's queue was full
    DramContention = 2,    ///< a DMA burst waited for DRAM bandwidth used by another master
    SramBankConflict = 3,  ///< an access waited for an SRAM/accumulator bank held by another unit
};
inline constexpr int kStallReasonCount = 4;
std::string_view stallReasonName(StallReason reason);

/// Command: a unit executes a command. Stall: a unit waits. HostCopyIn, HostKernel,
/// HostCopyOut: the host runs a CPU segment (copies its inputs out of device memory, runs the
/// kernel, copies its outputs back). WeightUpload: the host copies a streamed weight into
/// device memory before the job that first reads it (the event's op).
/// CommandFetch: the control core reading a job's command buffer from DRAM (job-level work of
/// no op; busy time, not a command).
enum class EventType : uint8_t { Command, Stall, HostCopyIn, HostKernel, HostCopyOut, WeightUpload, CommandFetch };
std::string_view eventTypeName(EventType type);

/// What a traced unit is, so reports need not guess from names.
enum class UnitKind : uint8_t { ControlCore, Dma, Tensor, Vector, Host };

struct UnitInfo {
    std::string name;
    UnitKind kind = UnitKind::Dma;
};

/// One interval on one unit's timeline, in cycles since the start of the simulation.
/// A unit's intervals never overlap: busy (Command) and stalled (Stall) time are disjoint.
/// The small fields come first, packed together: a whole network records millions of events.
struct Event {
    EventType type = EventType::Command;
    isa::Opcode opcode = isa::Opcode::End;
    uint16_t unit = 0;
    isa::CommandKind kind = isa::CommandKind::Compute;
    StallReason reason = StallReason::SemaphoreWait;
    bool onchipMove = false;  ///< a DMA between on-chip addresses: no DRAM traffic
    /// Busy time that continues an earlier event's command (a pipeline draining after it).
    bool continuation = false;
    uint32_t opId = 0, tileId = 0;
    uint64_t start = 0, end = 0;
    uint64_t bytes = 0;  ///< bytes moved by the command (DMA) or read/written (units)
    /// The work the command did: multiply-accumulates (tensor unit); lane cycles (vector unit:
    /// its groups of `lanes` elements x the cycles its function takes per group x lanes).
    uint64_t operations = 0;
};
static_assert(sizeof(Event) == 48, "an event is 48 bytes: its small fields share the first 16");

/// Collects events from all units of one simulation; bound in by the simulation top.
class Recorder {
public:
    /// Registers a unit's track and returns its index.
    uint16_t addUnit(std::string name, UnitKind kind);
    void record(const Event& event) { events_.push_back(event); }
    /// Makes room for `events` events up front (an estimate from the commands a run will
    /// execute), so that a long run's trace does not grow by copying itself.
    void reserve(size_t events) { events_.reserve(events); }

    const std::vector<UnitInfo>& units() const { return units_; }
    const std::vector<Event>& events() const { return events_; }
    /// Lets `change` rewrite every event in place (a report that names some events apart).
    template <class Change>
    void changeEach(Change&& change) {
        for (Event& e : events_) change(e);
    }

private:
    std::vector<UnitInfo> units_;
    std::vector<Event> events_;
};

}  // namespace npusim::trace
