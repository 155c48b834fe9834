// The DRAM window of the job being run: programmed by the control core, applied by the DMAs.
#pragma once

#include <cstdint>

namespace npusim::hw {

struct ContextWindow {
    uint64_t base = 0;  ///< physical address of window offset 0
    uint64_t size = 0;  ///< bytes; DMA offsets at or beyond it fault
};

}  // namespace npusim::hw
