// Firmware-side validation of one command against the hardware's limits and the job's
// context window, before anything is dispatched.
#pragma once

#include <cstdint>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "arch/register_map.h"

namespace npusim::firmware {

/// ErrorCode::None when the units can execute `command` safely; otherwise the first problem
/// found. `windowSize` bounds every DRAM offset of the job.
regs::ErrorCode validateCommand(const isa::Command& command, const ArchConfig& config,
                                uint64_t windowSize);

}  // namespace npusim::firmware
