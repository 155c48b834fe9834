// The vector unit's RTL core: Verilated integer lanes (vector_lanes.sv) compute int32 blocks
// of the elementwise integer ops (copy, add, sub, mul, max, min, relu, clip, less, equal) and
// set their cycles, measured on the lanes' own clock; other ops and dtypes stay on the model
// core and are counted (block "vector" of the RtlLog). Every command whose cycles differ from
// the timing model's is logged.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arch/arch_config.h"
#include "hw_model/vector/vector_core.h"
#include "rtl/rtl_log.h"

namespace npusim::rtl {

/// The (lanes, pipeline depth) pairs built into npusim.
std::vector<std::pair<uint32_t, uint32_t>> builtLaneConfigs();

/// An RTL core for `config`'s vector unit; InputError when no lanes of its width and depth are
/// built. Waveforms go to `vcdPath` when it is not empty.
std::unique_ptr<hw::VectorCore> makeVectorRtlCore(const ArchConfig& config, RtlLog& log, const std::string& vcdPath = "");

}  // namespace npusim::rtl
