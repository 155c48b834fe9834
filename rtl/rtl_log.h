// What the RTL blocks of a run did: per block, the commands they ran and left to the model
// core, and every command whose cycles on the RTL differ from the timing model's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace npusim::rtl {

struct RtlDifference {
    std::string block;  ///< "tensor", "vector"
    uint32_t opId = 0, tileId = 0;
    uint64_t modelCycles = 0, rtlCycles = 0;
    std::string detail;  ///< the phases compared
};

struct RtlBlockCounts {
    uint64_t onRtl = 0;        ///< commands the RTL computed and timed
    uint64_t onModel = 0;      ///< commands of dtypes or ops the block does not take
    uint64_t clockCycles = 0;  ///< cycles the block was clocked
};

struct RtlLog {
    std::map<std::string, RtlBlockCounts> blocks;
    std::vector<RtlDifference> differences;
};

}  // namespace npusim::rtl
