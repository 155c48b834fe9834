// The cost model's energy estimate and what a schedule search minimises with it
// (docs/COMPILER.md): the arch config's energy per action applied to an estimate's work.
#include "compiler/cost/cost_model.h"

namespace npusim::compiler {

double CostModel::energyPj(const CostEstimate& e, uint64_t macs, DType macType, double tensorBytes) const {
    const EnergyConfig& c = config_.energy;
    const double laneCycles = e.vectorCycles * config_.vector.lanes;
    constexpr double kVectorBytesPerLaneCycle = 8;  // a 4-byte element read and one written
    const auto dramBytes = static_cast<double>(e.dramBytes + e.commands * isa::kCommandBytes);
    // On chip at the operating voltage; DRAM's own.
    const double chip = static_cast<double>(macs) * c.mac(macType) +
                        (tensorBytes + laneCycles * kVectorBytesPerLaneCycle) * c.sramPjPerByte +
                        static_cast<double>(e.dramBytes) * (c.dmaPjPerByte + c.sramPjPerByte) +
                        laneCycles * c.vectorLane(DType::Fp32) + e.overheadCycles * c.controlCorePjPerCycle;
    // A closed page opens a row for every burst; an open one about once per row streamed.
    const double activations = dramBytes / (config_.dram.pagePolicy == PagePolicy::Closed ? config_.dma.burstBytes
                                                                                          : config_.dram.rowBytes);
    return (chip * c.dynamicScale() + dramBytes * c.dramPjPerByte + activations * c.dramActivatePj) * params_.energyScale;
}

double CostModel::score(const CostEstimate& e) const {
    switch (params_.objective) {
        case Objective::Cycles: return e.totalCycles;
        case Objective::Energy: return e.energyPj;
        case Objective::Edp: return e.totalCycles * e.energyPj;
    }
    return e.totalCycles;
}

std::optional<Objective> parseObjective(std::string_view name) {
    if (name == "cycles") return Objective::Cycles;
    if (name == "energy") return Objective::Energy;
    if (name == "edp") return Objective::Edp;
    return std::nullopt;
}

std::string_view objectiveName(Objective objective) {
    switch (objective) {
        case Objective::Cycles: return "cycles";
        case Objective::Energy: return "energy";
        case Objective::Edp: return "edp";
    }
    return "cycles";
}

}  // namespace npusim::compiler
