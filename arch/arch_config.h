// Architecture configuration in two layers: ArchConfigFile mirrors the JSON file (every field
// optional, in the file's units), ArchConfig is the validated runtime struct (defaults filled,
// times converted to cycles, impossible values rejected with the field's path).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arch/dtype.h"
#include "arch/isa.h"

namespace npusim {

// ---- Parse layer: exactly what a JSON file may say. ----

struct TensorDTypeFile {
    std::optional<uint32_t> cyclesPerRow;
    bool operator==(const TensorDTypeFile&) const = default;
};

struct TensorUnitFile {
    std::optional<uint32_t> rows, cols;
    std::optional<std::string> dataflow;
    std::optional<bool> doubleBuffered;
    std::optional<std::map<std::string, TensorDTypeFile>> dtypes;
    bool operator==(const TensorUnitFile&) const = default;
};

struct VectorUnitFile {
    std::optional<uint32_t> lanes, pipelineDepth;
    std::optional<std::map<std::string, uint32_t>> opCycles;
    bool operator==(const VectorUnitFile&) const = default;
};

struct MemoryFile {
    std::optional<uint64_t> sizeKib;
    std::optional<uint32_t> banks, bankWidthBytes, ports;
    bool operator==(const MemoryFile&) const = default;
};

struct DmaFile {
    std::optional<uint32_t> channels, burstBytes, maxOutstanding;
    std::optional<bool> transpose;
    bool operator==(const DmaFile&) const = default;
};

struct DramFile {
    std::optional<uint64_t> sizeMib;
    std::optional<double> bandwidthGbps, latencyNs;
    std::optional<uint32_t> channels, banks, rowBytes;
    std::optional<std::string> pagePolicy;
    std::optional<double> tCasNs, tRcdNs, tRpNs;
    bool operator==(const DramFile&) const = default;
};

struct ControlCoreFile {
    std::optional<uint32_t> dispatchCycles, validateCycles;
    bool operator==(const ControlCoreFile&) const = default;
};

struct HostFile {
    std::optional<double> mmioLatencyNs, copyGbps, irqLatencyNs, cpuGops;
    bool operator==(const HostFile&) const = default;
};

/// Energy per action, in pJ, and leakage (docs/ARCH_CONFIG.md gives each preset's sources).
struct EnergyFile {
    std::optional<double> technologyNm, nominalVoltageV, voltageV;
    std::optional<std::map<std::string, double>> macPj, vectorLanePj;
    std::optional<double> sramPjPerByte, dmaPjPerByte, dramPjPerByte, dramActivatePj, controlCorePjPerCycle,
        leakageMwPerMm2;
    bool operator==(const EnergyFile&) const = default;
};

/// Silicon area per unit of each block, from which a chip's area follows.
struct AreaFile {
    std::optional<std::map<std::string, double>> macUm2;
    std::optional<double> sramMm2PerMib, vectorLaneUm2, dmaChannelMm2, controlCoreMm2;
    bool operator==(const AreaFile&) const = default;
};

struct ArchConfigFile {
    std::optional<std::string> name, description;
    std::optional<double> clockMhz;
    std::optional<TensorUnitFile> tensor;
    std::optional<VectorUnitFile> vector;
    std::optional<MemoryFile> sram, accumulator;
    std::optional<DmaFile> dma;
    std::optional<DramFile> dram;
    std::optional<uint32_t> queueDepth, semaphores;
    std::optional<ControlCoreFile> controlCore;
    std::optional<HostFile> host;
    std::optional<EnergyFile> energy;
    std::optional<AreaFile> area;
    bool operator==(const ArchConfigFile&) const = default;
};

/// Parses JSON text (comments allowed); unknown fields and wrong types are errors naming the
/// field's dotted path. `origin` prefixes messages (a file name or preset name).
ArchConfigFile parseArchConfigFile(std::string_view jsonText, std::string_view origin);
/// Writes the parse layer back as JSON (absent fields omitted).
std::string archConfigFileToJson(const ArchConfigFile& file);

// ---- Validated layer: what the simulator and compiler use. ----

/// Systolic dataflow: what stays in the PEs while the other operands stream through.
enum class Dataflow : uint8_t {
    WeightStationary,  ///< a k x n block of B; m rows of A stream (k <= rows, n <= cols)
    OutputStationary,  ///< an m x n block of C; k columns of A and rows of B stream (m <= rows, n <= cols)
};
std::string_view dataflowName(Dataflow dataflow);

struct TensorUnitConfig {
    uint32_t rows = 0, cols = 0;
    Dataflow dataflow = Dataflow::WeightStationary;
    /// The next tile's stationary operand loads while the current tile streams.
    bool doubleBuffered = true;
    /// Supported operand dtypes and the cycles between consecutive streamed rows (WS: rows of
    /// A; OS: the k steps).
    std::map<DType, uint32_t> cyclesPerRow;

    bool supports(DType dtype) const { return cyclesPerRow.contains(dtype); }
    /// Whether one GEMM command of this shape fits the array under its dataflow.
    bool acceptsTile(uint64_t m, uint64_t n, uint64_t k) const {
        if (n > cols) return false;
        return dataflow == Dataflow::WeightStationary ? k <= rows : m <= rows;
    }
    /// MACs per cycle at full streaming rate for this dtype.
    double peakMacsPerCycle(DType dtype) const;
};

struct VectorUnitConfig {
    uint32_t lanes = 0;
    uint32_t pipelineDepth = 0;
    /// Cycles per group of `lanes` elements, by isa::VectorOp.
    std::array<uint32_t, isa::kVectorOpCount> opCycles{};
};

struct MemoryConfig {
    uint64_t sizeBytes = 0;
    uint32_t banks = 0, bankWidthBytes = 0, ports = 0;
    /// Bytes all banks deliver together per cycle.
    uint64_t bytesPerCycle() const { return uint64_t{banks} * bankWidthBytes * ports; }
    /// One interleave period: a buffer starting at a multiple of it starts in bank 0.
    uint64_t bankPeriod() const { return uint64_t{banks} * bankWidthBytes; }
};

struct DmaConfig {
    /// Channels per DMA engine: a command's bursts are spread over them round-robin, each
    /// channel issuing one burst per cycle with max_outstanding in flight.
    uint32_t channels = 0;
    uint32_t burstBytes = 0, maxOutstanding = 0;
    bool transpose = false;
};

/// What a DRAM bank does with its row after an access.
enum class PagePolicy : uint8_t {
    Open,    ///< keep it open: the next access to it is a row hit, to another row a miss
    Closed,  ///< close it: every access activates its row
};

struct DramConfig {
    uint64_t sizeBytes = 0;
    double bandwidthGbps = 0, latencyNs = 0;  ///< as configured
    double bytesPerCycle = 0;                 ///< derived from bandwidth and clock, all channels
    uint32_t latencyCycles = 0;               ///< controller and PHY, derived, rounded up
    /// Addresses interleave across channels every `channelInterleaveBytes`; within a channel a
    /// row holds rowBytes and consecutive rows rotate over the banks.
    uint32_t channels = 0, banks = 0, rowBytes = 0;
    static constexpr uint32_t channelInterleaveBytes = 256;
    PagePolicy pagePolicy = PagePolicy::Open;
    double tCasNs = 0, tRcdNs = 0, tRpNs = 0;                 ///< as configured
    uint32_t tCasCycles = 0, tRcdCycles = 0, tRpCycles = 0;  ///< derived, rounded up
};

struct ControlCoreConfig {
    uint32_t dispatchCycles = 0, validateCycles = 0;
};

struct HostConfig {
    double mmioLatencyNs = 0, irqLatencyNs = 0, copyGbps = 0;  ///< as configured
    /// Billions of kernel operations per second the host CPU runs CPU segments at.
    double cpuGops = 0;
    uint32_t mmioLatencyCycles = 0, irqLatencyCycles = 0;      ///< derived, rounded up
    double copyBytesPerCycle = 0;                              ///< derived
    double cpuOpsPerCycle = 0;                                 ///< derived, per NPU cycle
};

/// Energy per action in pJ (dynamic) and leakage per mm², for a technology node, at its nominal
/// voltage; the operating point's voltage scales them (DVFS).
struct EnergyConfig {
    double technologyNm = 0;
    /// The voltage the table's figures hold at, and the one the NPU runs at (with clock_mhz, its
    /// operating point): dynamic energy scales as V^2, leakage power as V.
    double nominalVoltageV = 0, voltageV = 0;
    /// One multiply-accumulate on the array, by operand dtype (every tensor operand dtype).
    std::map<DType, double> macPj;
    /// One vector lane busy one cycle, by the type it computes in: int32 (integers are
    /// computed widened), fp16, bf16, fp32. A function of several cycles per group (exp) costs
    /// as many lane cycles.
    std::map<DType, double> vectorLanePj;
    double sramPjPerByte = 0;  ///< a byte read or written in the SRAM or the accumulator memory
    double dmaPjPerByte = 0;   ///< a byte a DMA engine moves across the chip
    double dramPjPerByte = 0, dramActivatePj = 0;  ///< a byte read or written; a row opened
    double controlCorePjPerCycle = 0;              ///< the control core busy one cycle
    double leakageMwPerMm2 = 0;

    /// A MAC of `dtype` operands (a type the array does not list: fp32's).
    double mac(DType dtype) const;
    /// A vector lane cycle computing `dtype` (an integer type: int32's).
    double vectorLane(DType dtype) const;
    /// What the operating voltage makes of the table's dynamic energies and leakage power.
    double dynamicScale() const { return (voltageV / nominalVoltageV) * (voltageV / nominalVoltageV); }
    double leakageScale() const { return voltageV / nominalVoltageV; }
};

/// Silicon area of each block's unit, from which chipArea() follows.
struct AreaConfig {
    std::map<DType, double> macUm2;  ///< a multiply-accumulate unit, by operand dtype
    double sramMm2PerMib = 0;        ///< SRAM and accumulator memory
    double vectorLaneUm2 = 0, dmaChannelMm2 = 0, controlCoreMm2 = 0;
};

struct ArchConfig {
    std::string name, description;
    double clockMhz = 0;           ///< as configured
    double clockHz = 0;            ///< derived
    uint64_t clockPeriodPs = 0;    ///< derived, rounded to whole picoseconds
    TensorUnitConfig tensor;
    VectorUnitConfig vector;
    MemoryConfig sram, accumulator;
    DmaConfig dma;
    DramConfig dram;
    uint32_t queueDepth = 0, semaphores = 0;
    ControlCoreConfig controlCore;
    HostConfig host;
    EnergyConfig energy;
    AreaConfig area;
};

/// Fills defaults, converts units and rejects impossible values (InputError naming the field).
ArchConfig validateArchConfig(const ArchConfigFile& file);
/// The validated config back in file form, every field present: `npusim arch show` prints
/// it, and parsing it again gives the same ArchConfig.
ArchConfigFile toArchConfigFile(const ArchConfig& config);
/// Stable hash of the validated config (hex), recorded in artifacts.
std::string archConfigHash(const ArchConfig& config);

/// Names of the presets built into the binary (arch/presets/*.json).
std::vector<std::string> archPresetNames();
/// The JSON text of a built-in preset; nullopt when there is none by that name.
std::optional<std::string_view> archPresetText(std::string_view name);

/// Loads a preset name or a JSON file path, applies `path.to.field=value` overrides in order,
/// and validates. Throws InputError naming the preset, file, override or field at fault. With
/// overrides the config is named after them ("edge+tensor.rows=32") and described by its
/// fields, unless the overrides set the name or description.
ArchConfig loadArchConfig(std::string_view presetOrPath, std::span<const std::string> overrides);

}  // namespace npusim
