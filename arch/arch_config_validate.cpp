// The validated layer of the architecture config: defaults, unit conversion, range checks.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "arch/arch_config.h"
#include "arch/checksum.h"
#include "arch/error.h"

namespace npusim {
namespace {

// Defaults for fields a file leaves out: a small edge NPU.
constexpr double kDefaultClockMhz = 800;
constexpr uint32_t kDefaultArrayDim = 16;
constexpr uint32_t kDefaultVectorLanes = 16;
constexpr uint32_t kDefaultVectorPipelineDepth = 4;
constexpr uint64_t kDefaultSramKib = 512;
constexpr uint64_t kDefaultAccumulatorKib = 64;
constexpr uint32_t kDefaultBanks = 16;
constexpr uint32_t kDefaultBankWidthBytes = 16;
constexpr uint32_t kDefaultBurstBytes = 64;
constexpr uint32_t kDefaultMaxOutstanding = 32;
constexpr uint64_t kDefaultDramMib = 256;
constexpr double kDefaultDramGbps = 12.8;
constexpr double kDefaultDramLatencyNs = 70;
constexpr uint32_t kDefaultDramBanks = 8;
constexpr uint32_t kDefaultDramRowBytes = 2048;
constexpr double kDefaultDramTimingNs = 15;  // tCAS, tRCD and tRP
constexpr uint32_t kDefaultQueueDepth = 16;
constexpr uint32_t kDefaultSemaphores = 32;
constexpr uint32_t kDefaultDispatchCycles = 8;
constexpr uint32_t kDefaultValidateCycles = 2;
constexpr double kDefaultMmioLatencyNs = 200;
constexpr double kDefaultHostCopyGbps = 8;
constexpr double kDefaultHostCpuGops = 8;
constexpr double kDefaultIrqLatencyNs = 1000;

/// The tensor unit's operand types that a config may list.
constexpr DType kTensorOperandTypes[] = {DType::Int8, DType::UInt8, DType::Fp16, DType::Bf16,
                                         DType::Fp32};
/// The types the vector unit computes in.
constexpr DType kVectorComputeTypes[] = {DType::Int32, DType::Fp16, DType::Bf16, DType::Fp32};

// Energy and area defaults: Horowitz, "Computing's energy problem", ISSCC 2014, 45 nm at 0.9 V
// (docs/ARCH_CONFIG.md derives each value; the presets scale them to their nodes).
constexpr double kDefaultTechnologyNm = 45;
constexpr double kDefaultNominalVoltageV = 0.9;
/// A multiply and an add at the accumulator's width (int32 for integers, fp32 for floats).
constexpr std::pair<DType, double> kDefaultMacPj[] = {
    {DType::Int8, 0.3}, {DType::UInt8, 0.3}, {DType::Fp16, 2.0}, {DType::Bf16, 2.0}, {DType::Fp32, 4.6}};
/// An add at the lane's width.
constexpr std::pair<DType, double> kDefaultVectorLanePj[] = {
    {DType::Int32, 0.1}, {DType::Fp16, 0.4}, {DType::Bf16, 0.4}, {DType::Fp32, 0.9}};
constexpr double kDefaultSramPjPerByte = 2.5;       // 20 pJ per 64-bit read of a 32 KB array
constexpr double kDefaultDmaPjPerByte = 0.5;        // assumed: a byte across ~1 mm of wire
constexpr double kDefaultDramPjPerByte = 162.5;     // 1.3 nJ per 64-bit DDR3 access
constexpr double kDefaultDramActivatePj = 1000;     // assumed: a DDR3 row activation
constexpr double kDefaultControlCorePjPerCycle = 70;  // an instruction of a simple core
constexpr double kDefaultLeakageMwPerMm2 = 5;       // assumed
constexpr std::pair<DType, double> kDefaultMacUm2[] = {
    {DType::Int8, 419}, {DType::UInt8, 419}, {DType::Fp16, 5824}, {DType::Bf16, 5824}, {DType::Fp32, 11884}};
constexpr double kDefaultSramMm2PerMib = 4.15;      // 0.346 um2 cells at 70% array efficiency
constexpr double kDefaultVectorLaneUm2 = 11884;     // an fp32 multiplier and adder
constexpr double kDefaultDmaChannelMm2 = 0.1;       // assumed
constexpr double kDefaultControlCoreMm2 = 0.25;     // assumed
/// Upper limit of every energy (pJ) and area (um2, mm2) figure.
constexpr double kMaxFigure = 1e7;

class Validator {
public:
    explicit Validator(std::string origin) : origin_(std::move(origin)) {}

    [[noreturn]] void fail(std::string_view path, const std::string& what) const {
        throw InputError(origin_ + ": field '" + std::string(path) + "': " + what);
    }

    template <class T>
    T inRange(std::string_view path, const std::optional<T>& value, T fallback, T low,
              T high) const {
        const T v = value.value_or(fallback);
        if (v < low || v > high) {
            fail(path, "must be in [" + number(low) + ", " + number(high) + "], got " + number(v));
        }
        return v;
    }

    uint32_t powerOfTwo(std::string_view path, const std::optional<uint32_t>& value,
                        uint32_t fallback, uint32_t low, uint32_t high) const {
        const uint32_t v = inRange(path, value, fallback, low, high);
        if (!std::has_single_bit(v)) fail(path, "must be a power of two, got " + number(v));
        return v;
    }

    MemoryConfig memory(std::string_view name, const std::optional<MemoryFile>& file,
                        uint64_t defaultKib) const {
        const MemoryFile m = file.value_or(MemoryFile{});
        const std::string prefix(name);
        MemoryConfig config;
        config.sizeBytes = inRange<uint64_t>(prefix + ".size_kib", m.sizeKib, defaultKib, 1,
                                             uint64_t{1} << 22) * 1024;
        config.banks = inRange<uint32_t>(prefix + ".banks", m.banks, kDefaultBanks, 1, 1024);
        config.bankWidthBytes =
            powerOfTwo(prefix + ".bank_width_bytes", m.bankWidthBytes, kDefaultBankWidthBytes, 4, 512);
        config.ports = inRange<uint32_t>(prefix + ".ports", m.ports, 1, 1, 4);
        if (config.sizeBytes % (uint64_t{config.banks} * config.bankWidthBytes) != 0) {
            fail(prefix + ".size_kib", "must be a multiple of banks x bank_width_bytes (" +
                                           number(config.banks * config.bankWidthBytes) + " bytes)");
        }
        return config;
    }

    /// A table by dtype: the defaults, each entry the file gives replacing one, every key one
    /// of `types`.
    std::map<DType, double> table(const std::string& path, const std::optional<std::map<std::string, double>>& file,
                                  std::span<const std::pair<DType, double>> defaults, std::span<const DType> types) const {
        std::map<DType, double> values(defaults.begin(), defaults.end());
        for (const auto& [name, value] : file.value_or(std::map<std::string, double>{})) {
            const std::optional<DType> dtype = parseDType(name);
            if (!dtype || std::find(types.begin(), types.end(), *dtype) == types.end()) {
                std::string names;
                for (DType t : types) names += (names.empty() ? "" : ", ") + std::string(dtypeName(t));
                fail(path + "." + name, "not one of " + names);
            }
            values[*dtype] = inRange(path + "." + name, std::optional(value), 0.0, 0.0, kMaxFigure);
        }
        return values;
    }

    template <class T>
    static std::string number(T v) {
        if constexpr (std::is_floating_point_v<T>) {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%g", v);
            return buffer;
        } else {
            return std::to_string(v);
        }
    }

private:
    std::string origin_;
};

uint32_t nsToCycles(double ns, double clockHz) {
    return static_cast<uint32_t>(std::ceil(ns * 1e-9 * clockHz - 1e-9));
}

}  // namespace

std::string_view dataflowName(Dataflow dataflow) {
    return dataflow == Dataflow::WeightStationary ? "weight_stationary" : "output_stationary";
}

double EnergyConfig::mac(DType dtype) const {
    const auto it = macPj.find(dtype);
    return it == macPj.end() ? macPj.at(DType::Fp32) : it->second;
}

double EnergyConfig::vectorLane(DType dtype) const {
    const auto it = vectorLanePj.find(isFloat(dtype) ? dtype : DType::Int32);
    return it == vectorLanePj.end() ? vectorLanePj.at(DType::Fp32) : it->second;
}

double TensorUnitConfig::peakMacsPerCycle(DType dtype) const {
    const auto it = cyclesPerRow.find(dtype);
    if (it == cyclesPerRow.end()) return 0;
    return static_cast<double>(rows) * cols / it->second;
}

ArchConfig validateArchConfig(const ArchConfigFile& file) {
    const std::string origin = file.name.value_or("arch config");
    const Validator check(origin);
    ArchConfig config;
    config.name = file.name.value_or("custom");
    config.description = file.description.value_or("");

    config.clockMhz = check.inRange("clock_mhz", file.clockMhz, kDefaultClockMhz, 1.0, 10000.0);
    config.clockHz = config.clockMhz * 1e6;
    config.clockPeriodPs = static_cast<uint64_t>(std::llround(1e6 / config.clockMhz));

    const TensorUnitFile tensor = file.tensor.value_or(TensorUnitFile{});
    config.tensor.rows = check.inRange<uint32_t>("tensor.rows", tensor.rows, kDefaultArrayDim, 1, 1024);
    config.tensor.cols = check.inRange<uint32_t>("tensor.cols", tensor.cols, kDefaultArrayDim, 1, 1024);
    const std::string dataflow = tensor.dataflow.value_or("weight_stationary");
    if (dataflow == "weight_stationary") {
        config.tensor.dataflow = Dataflow::WeightStationary;
    } else if (dataflow == "output_stationary") {
        config.tensor.dataflow = Dataflow::OutputStationary;
    } else {
        check.fail("tensor.dataflow",
                   "must be weight_stationary or output_stationary, got '" + dataflow + "'");
    }
    config.tensor.doubleBuffered = tensor.doubleBuffered.value_or(true);
    const std::map<std::string, TensorDTypeFile> dtypes = tensor.dtypes.value_or(
        std::map<std::string, TensorDTypeFile>{{"int8", {1}}, {"uint8", {1}}, {"fp32", {4}}});
    if (dtypes.empty()) check.fail("tensor.dtypes", "must list at least one dtype");
    for (const auto& [name, entry] : dtypes) {
        const std::string path = "tensor.dtypes." + name;
        const std::optional<DType> dtype = parseDType(name);
        if (!dtype || std::find(std::begin(kTensorOperandTypes), std::end(kTensorOperandTypes),
                                *dtype) == std::end(kTensorOperandTypes)) {
            check.fail(path, "not a tensor operand dtype (int8, uint8, fp16, bf16, fp32)");
        }
        config.tensor.cyclesPerRow[*dtype] =
            check.inRange<uint32_t>(path + ".cycles_per_row", entry.cyclesPerRow, 1, 1, 64);
    }

    const VectorUnitFile vector = file.vector.value_or(VectorUnitFile{});
    config.vector.lanes = check.inRange<uint32_t>("vector.lanes", vector.lanes, kDefaultVectorLanes, 1, 4096);
    config.vector.pipelineDepth = check.inRange<uint32_t>(
        "vector.pipeline_depth", vector.pipelineDepth, kDefaultVectorPipelineDepth, 1, 64);
    // Defaults: one cycle per lane group, four for division and the transcendental functions.
    for (int op = 0; op < isa::kVectorOpCount; ++op) {
        using isa::VectorOp;
        const auto v = static_cast<VectorOp>(op);
        const bool slow = v == VectorOp::Div || (v >= VectorOp::Exp && v <= VectorOp::Erf) || v == VectorOp::Gelu;
        config.vector.opCycles[static_cast<size_t>(op)] = slow ? 4 : 1;
    }
    for (const auto& [name, cycles] : vector.opCycles.value_or(std::map<std::string, uint32_t>{})) {
        const std::string path = "vector.op_cycles." + name;
        int op = 0;
        while (op < isa::kVectorOpCount && isa::vectorOpName(static_cast<isa::VectorOp>(op)) != name) ++op;
        if (op == isa::kVectorOpCount) check.fail(path, "unknown vector op");
        config.vector.opCycles[static_cast<size_t>(op)] = check.inRange<uint32_t>(path, cycles, 1, 1, 256);
    }

    config.sram = check.memory("sram", file.sram, kDefaultSramKib);
    config.accumulator = check.memory("accumulator", file.accumulator, kDefaultAccumulatorKib);

    const DmaFile dma = file.dma.value_or(DmaFile{});
    config.dma.channels = check.inRange<uint32_t>("dma.channels", dma.channels, 1, 1, 64);
    config.dma.burstBytes = check.powerOfTwo("dma.burst_bytes", dma.burstBytes, kDefaultBurstBytes, 4, 4096);
    config.dma.maxOutstanding =
        check.inRange<uint32_t>("dma.max_outstanding", dma.maxOutstanding, kDefaultMaxOutstanding, 1, 256);
    config.dma.transpose = dma.transpose.value_or(true);

    const DramFile dram = file.dram.value_or(DramFile{});
    config.dram.sizeBytes =
        check.inRange<uint64_t>("dram.size_mib", dram.sizeMib, kDefaultDramMib, 1, uint64_t{1} << 20) << 20;
    config.dram.bandwidthGbps =
        check.inRange("dram.bandwidth_gbps", dram.bandwidthGbps, kDefaultDramGbps, 0.001, 1e5);
    config.dram.bytesPerCycle = config.dram.bandwidthGbps * 1e9 / config.clockHz;
    config.dram.latencyNs =
        check.inRange("dram.latency_ns", dram.latencyNs, kDefaultDramLatencyNs, 0.0, 1e6);
    config.dram.latencyCycles = nsToCycles(config.dram.latencyNs, config.clockHz);
    config.dram.channels = check.powerOfTwo("dram.channels", dram.channels, 1, 1, 64);
    config.dram.banks = check.powerOfTwo("dram.banks", dram.banks, kDefaultDramBanks, 1, 64);
    config.dram.rowBytes = check.powerOfTwo("dram.row_bytes", dram.rowBytes, kDefaultDramRowBytes,
                                            DramConfig::channelInterleaveBytes, 1u << 16);
    const std::string policy = dram.pagePolicy.value_or("open");
    if (policy != "open" && policy != "closed") {
        check.fail("dram.page_policy", "must be open or closed, got '" + policy + "'");
    }
    config.dram.pagePolicy = policy == "open" ? PagePolicy::Open : PagePolicy::Closed;
    config.dram.tCasNs = check.inRange("dram.t_cas_ns", dram.tCasNs, kDefaultDramTimingNs, 0.0, 1000.0);
    config.dram.tRcdNs = check.inRange("dram.t_rcd_ns", dram.tRcdNs, kDefaultDramTimingNs, 0.0, 1000.0);
    config.dram.tRpNs = check.inRange("dram.t_rp_ns", dram.tRpNs, kDefaultDramTimingNs, 0.0, 1000.0);
    config.dram.tCasCycles = nsToCycles(config.dram.tCasNs, config.clockHz);
    config.dram.tRcdCycles = nsToCycles(config.dram.tRcdNs, config.clockHz);
    config.dram.tRpCycles = nsToCycles(config.dram.tRpNs, config.clockHz);

    config.queueDepth = check.inRange<uint32_t>("queue_depth", file.queueDepth, kDefaultQueueDepth, 1, 4096);
    config.semaphores = check.inRange<uint32_t>("semaphores", file.semaphores, kDefaultSemaphores, 1, 256);

    const ControlCoreFile core = file.controlCore.value_or(ControlCoreFile{});
    config.controlCore.dispatchCycles = check.inRange<uint32_t>(
        "control_core.dispatch_cycles", core.dispatchCycles, kDefaultDispatchCycles, 0, 100000);
    config.controlCore.validateCycles = check.inRange<uint32_t>(
        "control_core.validate_cycles", core.validateCycles, kDefaultValidateCycles, 0, 100000);

    const HostFile host = file.host.value_or(HostFile{});
    config.host.mmioLatencyNs =
        check.inRange("host.mmio_latency_ns", host.mmioLatencyNs, kDefaultMmioLatencyNs, 0.0, 1e6);
    config.host.mmioLatencyCycles = nsToCycles(config.host.mmioLatencyNs, config.clockHz);
    config.host.irqLatencyNs =
        check.inRange("host.irq_latency_ns", host.irqLatencyNs, kDefaultIrqLatencyNs, 0.0, 1e7);
    config.host.irqLatencyCycles = nsToCycles(config.host.irqLatencyNs, config.clockHz);
    config.host.copyGbps =
        check.inRange("host.copy_gbps", host.copyGbps, kDefaultHostCopyGbps, 0.001, 1e5);
    config.host.copyBytesPerCycle = config.host.copyGbps * 1e9 / config.clockHz;
    config.host.cpuGops = check.inRange("host.cpu_gops", host.cpuGops, kDefaultHostCpuGops, 0.001, 1e5);
    config.host.cpuOpsPerCycle = config.host.cpuGops * 1e9 / config.clockHz;

    const EnergyFile energy = file.energy.value_or(EnergyFile{});
    const auto figure = [&](const std::string& path, const std::optional<double>& value, double fallback) {
        return check.inRange(path, value, fallback, 0.0, kMaxFigure);
    };
    config.energy.technologyNm = check.inRange("energy.technology_nm", energy.technologyNm, kDefaultTechnologyNm, 1.0, 1000.0);
    config.energy.nominalVoltageV =
        check.inRange("energy.nominal_voltage_v", energy.nominalVoltageV, kDefaultNominalVoltageV, 0.3, 2.0);
    config.energy.voltageV = check.inRange("energy.voltage_v", energy.voltageV, config.energy.nominalVoltageV, 0.3, 2.0);
    config.energy.macPj = check.table("energy.mac_pj", energy.macPj, kDefaultMacPj, kTensorOperandTypes);
    config.energy.vectorLanePj = check.table("energy.vector_lane_pj", energy.vectorLanePj, kDefaultVectorLanePj, kVectorComputeTypes);
    config.energy.sramPjPerByte = figure("energy.sram_pj_per_byte", energy.sramPjPerByte, kDefaultSramPjPerByte);
    config.energy.dmaPjPerByte = figure("energy.dma_pj_per_byte", energy.dmaPjPerByte, kDefaultDmaPjPerByte);
    config.energy.dramPjPerByte = figure("energy.dram_pj_per_byte", energy.dramPjPerByte, kDefaultDramPjPerByte);
    config.energy.dramActivatePj = figure("energy.dram_activate_pj", energy.dramActivatePj, kDefaultDramActivatePj);
    config.energy.controlCorePjPerCycle =
        figure("energy.control_core_pj_per_cycle", energy.controlCorePjPerCycle, kDefaultControlCorePjPerCycle);
    config.energy.leakageMwPerMm2 = figure("energy.leakage_mw_per_mm2", energy.leakageMwPerMm2, kDefaultLeakageMwPerMm2);

    const AreaFile area = file.area.value_or(AreaFile{});
    config.area.macUm2 = check.table("area.mac_um2", area.macUm2, kDefaultMacUm2, kTensorOperandTypes);
    config.area.sramMm2PerMib = figure("area.sram_mm2_per_mib", area.sramMm2PerMib, kDefaultSramMm2PerMib);
    config.area.vectorLaneUm2 = figure("area.vector_lane_um2", area.vectorLaneUm2, kDefaultVectorLaneUm2);
    config.area.dmaChannelMm2 = figure("area.dma_channel_mm2", area.dmaChannelMm2, kDefaultDmaChannelMm2);
    config.area.controlCoreMm2 = figure("area.control_core_mm2", area.controlCoreMm2, kDefaultControlCoreMm2);
    return config;
}

ArchConfigFile toArchConfigFile(const ArchConfig& config) {
    ArchConfigFile file;
    file.name = config.name;
    file.description = config.description;
    file.clockMhz = config.clockMhz;

    TensorUnitFile tensor;
    tensor.rows = config.tensor.rows;
    tensor.cols = config.tensor.cols;
    tensor.dataflow = std::string(dataflowName(config.tensor.dataflow));
    tensor.doubleBuffered = config.tensor.doubleBuffered;
    tensor.dtypes.emplace();
    for (const auto& [dtype, cycles] : config.tensor.cyclesPerRow) {
        (*tensor.dtypes)[std::string(dtypeName(dtype))] = TensorDTypeFile{cycles};
    }
    file.tensor = tensor;

    VectorUnitFile vector;
    vector.lanes = config.vector.lanes;
    vector.pipelineDepth = config.vector.pipelineDepth;
    vector.opCycles.emplace();
    for (int op = 0; op < isa::kVectorOpCount; ++op) {
        (*vector.opCycles)[std::string(isa::vectorOpName(static_cast<isa::VectorOp>(op)))] =
            config.vector.opCycles[static_cast<size_t>(op)];
    }
    file.vector = vector;

    auto memory = [](const MemoryConfig& m) {
        return MemoryFile{m.sizeBytes / 1024, m.banks, m.bankWidthBytes, m.ports};
    };
    file.sram = memory(config.sram);
    file.accumulator = memory(config.accumulator);
    file.dma = DmaFile{config.dma.channels, config.dma.burstBytes, config.dma.maxOutstanding, config.dma.transpose};
    file.dram = DramFile{config.dram.sizeBytes >> 20,
                         config.dram.bandwidthGbps,
                         config.dram.latencyNs,
                         config.dram.channels,
                         config.dram.banks,
                         config.dram.rowBytes,
                         std::string(config.dram.pagePolicy == PagePolicy::Open ? "open" : "closed"),
                         config.dram.tCasNs,
                         config.dram.tRcdNs,
                         config.dram.tRpNs};
    file.queueDepth = config.queueDepth;
    file.semaphores = config.semaphores;
    file.controlCore =
        ControlCoreFile{config.controlCore.dispatchCycles, config.controlCore.validateCycles};
    file.host = HostFile{config.host.mmioLatencyNs, config.host.copyGbps, config.host.irqLatencyNs, config.host.cpuGops};

    const auto table = [](const std::map<DType, double>& values) {
        std::map<std::string, double> named;
        for (const auto& [dtype, value] : values) named[std::string(dtypeName(dtype))] = value;
        return named;
    };
    const EnergyConfig& e = config.energy;
    file.energy = EnergyFile{e.technologyNm,   e.nominalVoltageV,       e.voltageV,
                             table(e.macPj),   table(e.vectorLanePj),   e.sramPjPerByte,
                             e.dmaPjPerByte,   e.dramPjPerByte,         e.dramActivatePj,
                             e.controlCorePjPerCycle, e.leakageMwPerMm2};
    const AreaConfig& a = config.area;
    file.area = AreaFile{table(a.macUm2), a.sramMm2PerMib, a.vectorLaneUm2, a.dmaChannelMm2, a.controlCoreMm2};
    return file;
}

std::string archConfigHash(const ArchConfig& config) {
    const std::string canonical = archConfigFileToJson(toArchConfigFile(config));
    return hexDigest(fnv1a64(std::as_bytes(std::span(canonical))));
}

}  // namespace npusim
