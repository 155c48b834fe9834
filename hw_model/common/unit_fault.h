// A command a unit cannot complete: thrown from a unit's execute(), turned into the job's
// fault by the command processor.
#pragma once

#include <string>

#include "arch/register_map.h"

namespace npusim::hw {

struct UnitFault {
    regs::ErrorCode code;
    std::string detail;
};

}  // namespace npusim::hw
