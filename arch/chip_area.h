// The chip's silicon area by unit, from the configuration's sizes and its area table
// (docs/ARCH_CONFIG.md): what a design point costs beside its cycles and energy.
#pragma once

#include <string>
#include <vector>

#include "arch/arch_config.h"

namespace npusim {

struct UnitArea {
    std::string unit;  ///< control_core, dma_load, dma_store, tensor, vector, sram
    double mm2 = 0;
};

/// Every unit's area, in the order above: the array's PEs (each as large as its widest
/// datapath, a dtype's multiply-accumulate unit divided by the cycles it takes per row), the
/// vector lanes, each DMA engine's channels, the control core, and the SRAM with the
/// accumulator memory.
std::vector<UnitArea> chipArea(const ArchConfig& config);
double totalArea(const std::vector<UnitArea>& units);

}  // namespace npusim
