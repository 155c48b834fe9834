// Trace-event names and the recorder.
#include "arch/trace_event.h"

#include <array>

namespace npusim::trace {

std::string_view stallReasonName(StallReason reason) {
    static constexpr std::array<std::string_view, kStallReasonCount> kNames = {
        "semaphore_wait", "queue_full", "dram_contention", "sram_bank_conflict"};
    return kNames[static_cast<size_t>(reason)];
}

std::string_view eventTypeName(EventType type) {
    static constexpr std::array<std::string_view, 7> kNames = {"command", "stall",    "copy_in",      "kernel",
                                                               "copy_out", "weight_upload", "command_fetch"};
    return kNames[static_cast<size_t>(type)];
}

uint16_t Recorder::addUnit(std::string name, UnitKind kind) {
    units_.push_back({std::move(name), kind});
    return static_cast<uint16_t>(units_.size() - 1);
}

}  // namespace npusim::trace
