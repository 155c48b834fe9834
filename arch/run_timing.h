// How long a model took on the host's clock: the cold start (load and first inference), a warm
// inference, and the steady state. Filled by the simulation, written by the reports.
#pragma once

#include <cstdint>
#include <optional>

namespace npusim {

/// One phase in simulated time (NPU clock cycles as the host sees them, copies and interrupts
/// included) and in host wall-clock time.
struct PhaseTiming {
    uint64_t cycles = 0;
    double hostSeconds = 0;
};

struct RunTiming {
    PhaseTiming cold;                   ///< context, weights and command upload, then one inference
    std::optional<PhaseTiming> warm;    ///< the next inference
    std::optional<PhaseTiming> steady;  ///< the median of `repeat` inferences after the warm one
    int repeat = 0;
};

}  // namespace npusim
