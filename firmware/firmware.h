// The control core's firmware: waits for the doorbell, fetches the job's command buffer,
// validates every command, dispatches them to the unit queues, and reports completion or the
// first error through the status registers and an interrupt.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/isa.h"
#include "arch/register_map.h"
#include "hw_model/control/control_core_hal.h"

namespace npusim::firmware {

/// Commands a job may hold (bounds the fetch buffer).
inline constexpr uint32_t kMaxJobCommands = 1u << 20;

class Firmware : public hw::ControlProgram {
public:
    void run(hw::ControlCoreHal& hal) override;

private:
    void runJob(hw::ControlCoreHal& hal);
    /// Fetches, decodes and validates the whole buffer; on failure reports the error and
    /// returns false.
    bool loadJob(hw::ControlCoreHal& hal, uint64_t jobStart);
    void finishJob(hw::ControlCoreHal& hal, uint64_t jobStart, regs::ErrorCode error,
                   uint32_t commandIndex);

    std::vector<std::byte> fetchBuffer_;
    std::vector<isa::Command> commands_;
};

}  // namespace npusim::firmware
