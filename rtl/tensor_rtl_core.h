// The tensor unit's RTL core: the Verilated systolic array (systolic_array.sv) computes int8
// and uint8 tiles and sets their phase lengths, measured cycle by cycle on the array's own
// clock; other dtypes stay on the model core and are counted (block "tensor" of the RtlLog).
// Every command whose RTL phases differ from the timing model's is logged.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arch/arch_config.h"
#include "hw_model/tensor/tensor_core.h"
#include "rtl/rtl_log.h"

namespace npusim::rtl {

/// The square array sizes built into npusim (tensor.rows = tensor.cols).
std::vector<uint32_t> builtArraySizes();

/// An RTL core for `config`'s tensor unit, logging into `log` (which must outlive it) and, when
/// `vcdPath` is not empty, writing the array's waveforms there. InputError when no array of
/// the config's size is built or its dataflow is not weight stationary.
std::unique_ptr<hw::TensorCore> makeTensorRtlCore(const ArchConfig& config, RtlLog& log,
                                                  const std::string& vcdPath = "");

}  // namespace npusim::rtl
