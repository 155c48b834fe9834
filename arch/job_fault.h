// Why an NPU job stopped: what the command processor raises and the firmware reports to the
// host through the error registers.
#pragma once

#include <cstdint>
#include <string>

#include "arch/register_map.h"

namespace npusim {

/// Why a job stopped: the error code, the index of the command in the job's buffer, and a
/// sentence for people.
struct JobFault {
    regs::ErrorCode code = regs::ErrorCode::None;
    uint32_t commandIndex = 0;
    std::string detail;
};

}  // namespace npusim
