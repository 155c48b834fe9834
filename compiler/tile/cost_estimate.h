// The cost model's view of a schedule, shared by every tile op.
#pragma once

#include <cstdint>

namespace npusim::compiler {

struct CostEstimate {
    double tensorCycles = 0, vectorCycles = 0, dmaCycles = 0, overheadCycles = 0;
    double totalCycles = 0;
    uint64_t dramBytes = 0, commands = 0;
};

}  // namespace npusim::compiler
