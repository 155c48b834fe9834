// The tensor unit's RTL core: the Verilated systolic array (systolic_array.sv) computes int8
// and uint8 tiles and sets their phase lengths, measured cycle by cycle on the array's own
// clock; other dtypes stay on the model core and are counted. Every command whose RTL phases
// differ from the timing model's is logged.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arch/arch_config.h"
#include "hw_model/tensor/tensor_core.h"

namespace npusim::rtl {

/// A command whose phases on the RTL differ from the timing model's.
struct PhaseDifference {
    uint32_t opId = 0, tileId = 0;
    hw::TilePhases model, rtl;
};

/// What the RTL core did in a run.
struct TensorRtlLog {
    uint64_t rtlTiles = 0;    ///< tiles computed and timed by the RTL array
    uint64_t modelTiles = 0;  ///< tiles of dtypes the array does not take, left to the model core
    uint64_t rtlCycles = 0;   ///< cycles the array was clocked
    std::vector<PhaseDifference> differences;
};

/// The square array sizes built into npusim (tensor.rows = tensor.cols).
std::vector<uint32_t> builtArraySizes();

/// An RTL core for `config`'s tensor unit, logging into `log` (which must outlive it) and, when
/// `vcdPath` is not empty, writing the array's waveforms there. InputError when no array of
/// the config's size is built or its dataflow is not weight stationary.
std::unique_ptr<hw::TensorCore> makeTensorRtlCore(const ArchConfig& config, TensorRtlLog& log,
                                                  const std::string& vcdPath = "");

}  // namespace npusim::rtl
