// Op spans: each op's time from the start of its first to the end of its last event on the
// units that execute it (the control core's dispatch work and weight uploads left out), the one
// measure of an op's cycles that reports, traces and calibration share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>

#include "arch/trace_event.h"

namespace npusim::reports {

struct OpSpan {
    uint64_t start = 0, end = 0;
    uint64_t cycles() const { return end - start; }
};

/// Whether an event lies in the window [from, to) (an instant event at `from` counts): a
/// --repeat run's later runs lie outside the first run's.
bool inWindow(const trace::Event& e, uint64_t from, uint64_t to);

/// The spans of the ops of `trace`'s events from index `firstEvent` on that lie in the window
/// [from, to) (an instant event at `from` counts), by op id.
std::map<uint32_t, OpSpan> opSpans(const trace::Recorder& trace, size_t firstEvent = 0, uint64_t from = 0,
                                   uint64_t to = std::numeric_limits<uint64_t>::max());

}  // namespace npusim::reports
