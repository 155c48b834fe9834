// The area model: each unit's mm2 from its size and the arch config's area table.
#include "arch/chip_area.h"

#include <algorithm>

namespace npusim {

std::vector<UnitArea> chipArea(const ArchConfig& config) {
    // A PE computes its widest dtype at that dtype's rate: a datapath taking several cycles per
    // row is that many times smaller than a full-rate one.
    double peUm2 = 0;
    for (const auto& [dtype, cycles] : config.tensor.cyclesPerRow) {
        peUm2 = std::max(peUm2, config.area.macUm2.at(dtype) / cycles);
    }
    constexpr double kUm2PerMm2 = 1e6;
    const double dmaEngine = config.dma.channels * config.area.dmaChannelMm2;
    const double memoryMib = static_cast<double>(config.sram.sizeBytes + config.accumulator.sizeBytes) / (1 << 20);
    return {{"control_core", config.area.controlCoreMm2},
            {"dma_load", dmaEngine},
            {"dma_store", dmaEngine},
            {"tensor", static_cast<double>(config.tensor.rows) * config.tensor.cols * peUm2 / kUm2PerMm2},
            {"vector", config.vector.lanes * config.area.vectorLaneUm2 / kUm2PerMm2},
            {"sram", memoryMib * config.area.sramMm2PerMib}};
}

double totalArea(const std::vector<UnitArea>& units) {
    double total = 0;
    for (const UnitArea& u : units) total += u.mm2;
    return total;
}

}  // namespace npusim
