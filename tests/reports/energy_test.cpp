// The energy model on a synthetic trace: each action priced by the arch config's table, units
// and ops adding up to the totals, leakage from the area over the run's time, the power
// windows, and a changed MAC energy moving the tensor unit's energy alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "arch/arch_config.h"
#include "arch/chip_area.h"
#include "arch/error.h"
#include "reports/report.h"

namespace npusim::reports {
namespace {

using trace::Event;
using trace::EventType;
using trace::UnitKind;

struct Trace {
    trace::Recorder trace;
    uint16_t control = trace.addUnit("npu.control_core", UnitKind::ControlCore);
    uint16_t load = trace.addUnit("npu.dma_load", UnitKind::Dma);
    uint16_t store = trace.addUnit("npu.dma_store", UnitKind::Dma);
    uint16_t tensor = trace.addUnit("npu.tensor", UnitKind::Tensor);
    uint16_t vector = trace.addUnit("npu.vector", UnitKind::Vector);
    ArtifactManifest manifest;

    Trace() {
        OpRecord gemm;
        gemm.opId = 0;
        gemm.name = "fc";
        gemm.dtype = DType::Int8;
        gemm.macs = 4096;
        gemm.commandBytes = 192;
        OpRecord relu;
        relu.opId = 1;
        relu.name = "relu";
        relu.dtype = DType::Fp32;
        relu.commandBytes = 64;
        manifest.ops = {gemm, relu};
        fetch(0, 10, 256);
        add(control, isa::Opcode::Gemm, 0, 10, 14);
        add(load, isa::Opcode::DmaLoad, 0, 14, 40, 2048);
        add(tensor, isa::Opcode::Gemm, 0, 40, 80, 1024, 4096);
        add(vector, isa::Opcode::Vector, 1, 80, 90, 512, 160);
        add(load, isa::Opcode::DmaLoad, 1, 90, 95, 256, 0, /*onchipMove=*/true);
        add(store, isa::Opcode::DmaStore, 1, 95, 100, 128);
    }
    void add(uint16_t unit, isa::Opcode opcode, uint32_t op, uint64_t start, uint64_t end, uint64_t bytes = 0,
             uint64_t operations = 0, bool onchipMove = false) {
        Event e;
        e.unit = unit;
        e.opcode = opcode;
        e.opId = op;
        e.start = start;
        e.end = end;
        e.bytes = bytes;
        e.operations = operations;
        e.onchipMove = onchipMove;
        trace.record(e);
    }
    void fetch(uint64_t start, uint64_t end, uint64_t bytes) {
        Event e;
        e.type = EventType::CommandFetch;
        e.unit = control;
        e.opId = isa::kNoOp;
        e.start = start;
        e.end = end;
        e.bytes = bytes;
        trace.record(e);
    }
    Report report(const ArchConfig& config) const {
        // 4 row misses in the inference, 3 more while the model loaded.
        return buildReport({config, manifest, trace, 0, 100, 2048 + 128 + 256, 128, 3, 7, {}, 4});
    }
};

double unitDynamic(const Report& r, const std::string& unit) {
    const auto it = std::find_if(r.energy.units.begin(), r.energy.units.end(), [&](const UnitEnergy& u) { return u.unit == unit; });
    return it == r.energy.units.end() ? -1 : it->dynamicPj;
}

TEST(Energy, EveryActionIsPricedByTheConfigsTable) {
    const Trace t;
    const ArchConfig config = loadArchConfig("edge", {});
    const EnergyConfig& e = config.energy;
    const Report r = t.report(config);
    EXPECT_DOUBLE_EQ(unitDynamic(r, "tensor"), 4096 * e.macPj.at(DType::Int8));
    EXPECT_DOUBLE_EQ(unitDynamic(r, "vector"), 160 * e.vectorLane(DType::Fp32));
    EXPECT_DOUBLE_EQ(unitDynamic(r, "dma_load"), (2048 + 256) * e.dmaPjPerByte);
    EXPECT_DOUBLE_EQ(unitDynamic(r, "dma_store"), 128 * e.dmaPjPerByte);
    // SRAM: the tensor and vector units' bytes, each DMA's once, the on-chip move's twice.
    EXPECT_DOUBLE_EQ(unitDynamic(r, "sram"), (1024 + 512 + 2048 + 2 * 256 + 128) * e.sramPjPerByte);
    // DRAM: the loads, the store and the command fetch, and the inference's 4 row activations.
    EXPECT_DOUBLE_EQ(unitDynamic(r, "dram"), (2048 + 128 + 256) * e.dramPjPerByte + 4 * e.dramActivatePj);
    EXPECT_DOUBLE_EQ(unitDynamic(r, "control_core"), (10 + 4) * e.controlCorePjPerCycle);
    EXPECT_EQ(r.energy.dramActivates, 4u);
}

TEST(Energy, UnitsAndOpsAddUpToTheTotals) {
    const Trace t;
    const Report r = t.report(loadArchConfig("edge", {}));
    double dynamic = 0, leakage = 0, area = 0;
    for (const UnitEnergy& u : r.energy.units) {
        dynamic += u.dynamicPj;
        leakage += u.leakagePj;
        area += u.areaMm2;
    }
    EXPECT_NEAR(dynamic, r.energy.dynamicPj, 1e-9 * r.energy.dynamicPj);
    EXPECT_NEAR(leakage, r.energy.leakagePj, 1e-9 * r.energy.leakagePj);
    EXPECT_NEAR(area, r.energy.areaMm2, 1e-12);
    double ops = 0;
    for (const OpReport& op : r.ops) ops += op.energyPj;
    EXPECT_NEAR(ops, r.energy.dynamicPj, 1e-9 * r.energy.dynamicPj);
    // The command fetch is the ops' by their command bytes: 3/4 to the GEMM.
    EXPECT_GT(r.ops.at(0).energyPj, unitDynamic(r, "tensor"));
}

TEST(Energy, LeakageIsTheAreaOverTheRunsTime) {
    const Trace t;
    const ArchConfig config = loadArchConfig("edge", {});
    const Report r = t.report(config);
    const double seconds = 100 / config.clockHz;
    EXPECT_NEAR(r.energy.leakagePj, totalArea(chipArea(config)) * config.energy.leakageMwPerMm2 * 1e-3 * seconds * 1e12,
                1e-9 * r.energy.leakagePj);
    EXPECT_NEAR(r.energy.averageWatts, r.energy.totalPj() * 1e-12 / seconds, 1e-9);
    // The run is shorter than a power window (a microsecond): its peak is its average.
    EXPECT_EQ(r.energy.windowCycles, 800u);
    EXPECT_NEAR(r.energy.peakWatts, r.energy.averageWatts, 1e-9);
    // The windows of trace.json's power track hold the same energy.
    const std::vector<double> watts = powerWindows({config, t.manifest, t.trace, 0, 100, 2432, 128, 3, 7, {}, 4}, 0, 100, 10);
    ASSERT_EQ(watts.size(), 10u);
    const double windowSeconds = 10 / config.clockHz;
    const double joules = std::accumulate(watts.begin(), watts.end(), 0.0) * windowSeconds;
    EXPECT_NEAR(joules * 1e12, r.energy.totalPj(), 1e-6 * r.energy.totalPj());
    // The busiest window is the tensor unit's: above the average.
    EXPECT_GT(*std::max_element(watts.begin(), watts.end()), r.energy.averageWatts);
}

TEST(Energy, DoublingAMacEnergyChangesTheTensorUnitsEnergyAlone) {
    const Trace t;
    const ArchConfig base = loadArchConfig("edge", {});
    const std::string doubled = "energy.mac_pj.int8=" + std::to_string(2 * base.energy.macPj.at(DType::Int8));
    const Report a = t.report(base);
    const Report b = t.report(loadArchConfig("edge", std::vector{doubled}));
    for (size_t u = 0; u < a.energy.units.size(); ++u) {
        const UnitEnergy &x = a.energy.units[u], &y = b.energy.units[u];
        if (x.unit == "tensor") {
            EXPECT_NEAR(y.dynamicPj, 2 * x.dynamicPj, 1e-9 * x.dynamicPj);
        } else {
            EXPECT_DOUBLE_EQ(y.dynamicPj, x.dynamicPj) << x.unit;
        }
        EXPECT_DOUBLE_EQ(y.leakagePj, x.leakagePj) << x.unit;
    }
}

TEST(Energy, TheOperatingVoltageScalesTheChipsEnergyNotTheDrams) {
    const Trace t;
    const ArchConfig nominal = loadArchConfig("edge", {});
    const double volts = 0.75 * nominal.energy.nominalVoltageV;
    const Report a = t.report(nominal);
    const Report b = t.report(loadArchConfig("edge", std::vector{"energy.voltage_v=" + std::to_string(volts)}));
    for (size_t u = 0; u < a.energy.units.size(); ++u) {
        const UnitEnergy &x = a.energy.units[u], &y = b.energy.units[u];
        // DRAM's row activations are its own too.
        EXPECT_NEAR(y.dynamicPj, x.dynamicPj * (x.unit == "dram" ? 1 : 0.75 * 0.75), 1e-9 * x.dynamicPj) << x.unit;
        EXPECT_NEAR(y.leakagePj, x.leakagePj * 0.75, 1e-9 * x.leakagePj + 1e-12) << x.unit;
    }
}

TEST(Energy, AnEnergyTableEntryMustBeAKnownTypeAndNotNegative) {
    EXPECT_THROW(loadArchConfig("edge", std::vector<std::string>{"energy.mac_pj.int4=0.1"}), InputError);
    EXPECT_THROW(loadArchConfig("edge", std::vector<std::string>{"energy.sram_pj_per_byte=-1"}), InputError);
    EXPECT_THROW(loadArchConfig("edge", std::vector<std::string>{"area.mac_um2.int32=10"}), InputError);
    EXPECT_THROW(loadArchConfig("edge", std::vector<std::string>{"energy.voltage_v=0"}), InputError);
}

}  // namespace
}  // namespace npusim::reports
