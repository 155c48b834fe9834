// The control core's firmware: waits for the doorbell, then streams the job's command buffer
// in chunks: fetch a chunk, validate every command of it, dispatch it to the unit queues, while
// the units work on the chunks before. A loop descriptor is fetched whole and expanded, each
// command it generates checked and dispatched in turn. Completion, or the first error with the index of the
// command at fault, is reported through the status registers and an interrupt.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/isa.h"
#include "arch/register_map.h"
#include "firmware/control_core_hal.h"

namespace npusim::firmware {

/// Commands fetched and validated before the first of them is dispatched.
inline constexpr uint32_t kFetchChunk = 256;

class Firmware : public ControlProgram {
public:
    void run(ControlCoreHal& hal) override;

private:
    void runJob(ControlCoreHal& hal);
    /// Makes commands [index, index + count) of the job resident in window_, dropping those
    /// before `index` and fetching whole chunks after what it holds; returns the first error.
    std::optional<JobFault> fetch(ControlCoreHal& hal, uint64_t address, uint32_t index, uint32_t count,
                                      uint32_t total, uint64_t windowSize);
    /// Fetches and validates commands [first, first + count) of the job onto the end of
    /// window_; returns the first error, if any.
    std::optional<JobFault> loadChunk(ControlCoreHal& hal, uint64_t address, uint32_t first,
                                          uint32_t count, uint32_t total, uint64_t windowSize);
    void finishJob(ControlCoreHal& hal, uint64_t jobStart, regs::ErrorCode error,
                   uint32_t commandIndex);

    std::vector<std::byte> fetchBuffer_;
    /// Fetched and validated commands, the first of them command windowFirst_ of the job.
    std::vector<isa::Command> window_;
    uint32_t windowFirst_ = 0;
    /// The context of the last job (0: none yet; the driver numbers contexts from 1); on-chip
    /// memory is scrubbed when it changes.
    uint32_t lastContext_ = 0;
};

}  // namespace npusim::firmware
