// The artifact container: a versioned file holding a manifest (what was compiled, for which
// architecture, how to bind it) and checksummed sections (command stream, weights image, IR).
// Layout in docs/ARTIFACT.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "arch/dtype.h"
#include "arch/tensor.h"

namespace npusim {

inline constexpr uint32_t kArtifactFormatVersion = 11;

/// Device memory the runtime keeps beside a context's window for command buffers: a stream
/// that does not fit runs as a chain of jobs of at most this many bytes each. A compiler that
/// sizes windows to the device's DRAM leaves this much free.
inline constexpr uint64_t kCommandStagingBytes = uint64_t{4} << 20;

/// A model input or output and where it lives inside the context's DRAM window.
struct TensorBinding {
    std::string name;
    DType dtype = DType::Fp32;
    Shape shape;
    uint64_t dramOffset = 0;
    /// Per dim, the model's symbol for it ("" for a fixed dim); empty when every dim is fixed.
    std::vector<std::string> symbols;
    /// A CPU segment's weight input: where its bytes are in the weights section, which the
    /// host reads instead of copying them out of device memory (-1: not a weight).
    int64_t imageOffset = -1;
    bool operator==(const TensorBinding&) const = default;
};

/// An intermediate an op stores or reloads through DRAM because it did not fit on chip.
struct SpillRecord {
    std::string tensor;       ///< the value's name
    uint64_t bytes = 0;
    uint64_t sramToKeep = 0;  ///< the SRAM size that would have kept it on chip
    bool operator==(const SpillRecord&) const = default;
};

/// The fewest cycles each unit needs for an op, whatever its schedule: the terms of the op's
/// shape-aware roofline (docs/REPORTS.md). The array for its GEMM's shape (gemmArrayCycles),
/// the vector unit for its steps' elements at its lanes, each DMA engine for the bytes the op
/// must load or store at least once (its operands as far as its commands reach them, in DRAM
/// or on chip) at its peak.
struct UnitBounds {
    uint64_t array = 0, vector = 0, load = 0, store = 0;
    bool operator==(const UnitBounds&) const = default;
};

/// One graph op as the reports see it.
struct OpRecord {
    uint32_t opId = 0;
    std::string name;  ///< the ONNX node name
    std::string type;  ///< the ONNX op type
    DType dtype = DType::Fp32;  ///< the dtype the op computes in
    uint64_t macs = 0;
    uint64_t minDramBytes = 0;  ///< compulsory traffic: its tensors that live in DRAM, once
    UnitBounds bounds;
    /// The cost model's cycles for the op's schedule, and the largest term of the estimate
    /// (compute, memory, transfer, exposed, dispatch, per_block, per_op; "" without one).
    double estimatedCycles = 0;
    std::string estimateLargest;
    double estimatedEnergyPj = 0;  ///< the cost model's dynamic energy for the schedule
    std::vector<SpillRecord> spills;  ///< spilled intermediates the op stores or reloads
    /// SRAM in use while the op runs: its buffer slots and the resident intermediates live across it.
    uint64_t sramBytes = 0;
    /// What the compiler made the op for, when it made it (a Reformat: "layout CNHW -> NCHW").
    std::string note;
    /// Commands the NPU dispatches for the op (loops expanded), and the bytes of descriptors
    /// the artifact holds for them (a loop's header and steps count for its first command's op).
    uint64_t commands = 0, commandBytes = 0;
    bool operator==(const OpRecord&) const = default;
};

/// Weight bytes the runtime copies into the window before a segment runs: `bytes` of the
/// "weights" section from `source`, to `dramOffset`. Weights that DRAM cannot hold all at once
/// are streamed this way, each just before the first job that reads it (`opId`, its first reader).
struct WeightUpload {
    uint64_t source = 0, dramOffset = 0, bytes = 0;
    uint32_t opId = 0;
    bool operator==(const WeightUpload&) const = default;
};

/// One step of a run, in order: an NPU segment (a job running one command-stream section) or
/// a CPU segment (one op the NPU cannot run, a JIT-compiled kernel of the "cpu" section, its
/// tensors copied from the context's DRAM window to the host and back).
struct SegmentRecord {
    bool cpu = false;
    std::string section;  ///< NPU: the section of its command stream ("commands", "commands.1"...)
    std::string kernel;   ///< CPU: the kernel's symbol
    uint32_t opId = 0;    ///< CPU: the op it runs
    uint64_t operations = 0;  ///< CPU: the kernel's operation count (its cost on the host)
    std::vector<TensorBinding> inputs, outputs;  ///< CPU: the kernel's buffers, in argument order
    std::vector<WeightUpload> uploads;  ///< streamed weights to copy in before the segment runs
    bool operator==(const SegmentRecord&) const = default;
};

/// One size a model with a symbolic dim was compiled for (a shape bucket). Its sections are
/// its runSections with "@<label>" appended (bucketLabel): "commands@seq=128", "weights@...",
/// "cpu@...".
struct BucketRecord {
    std::string symbol;
    int64_t size = 0;
    std::vector<TensorBinding> inputs, outputs;
    uint64_t dramBytes = 0, weightsOffset = 0, residentWeightBytes = 0;
    std::vector<TensorBinding> sizes;
    std::vector<OpRecord> ops;
    std::vector<SegmentRecord> segments;
    bool operator==(const BucketRecord&) const = default;
};

struct ArtifactManifest {
    uint32_t formatVersion = kArtifactFormatVersion;
    std::string compilerVersion;
    std::string modelName;
    std::string modelHash;   ///< SHA-256 of the model file
    std::string archName;
    std::string archHash;    ///< archConfigHash() of the config compiled for
    std::string archConfig;  ///< that config as JSON (npusim arch show form)
    /// The precision compiled at (`--precision`: "fp32" as the model declares, "bf16", ...), and
    /// the ops kept at another (op name or type -> precision).
    std::string precision = "fp32";
    std::map<std::string, std::string> precisionOverrides;
    /// At int8, how the activation ranges were calibrated: "<method> <scheme>, N samples"
    /// ("minmax asymmetric, 8 samples"); empty otherwise.
    std::string calibration;
    /// What the schedules were chosen for (`--objective`): "cycles", "energy" or "edp".
    std::string objective = "cycles";
    std::vector<TensorBinding> inputs, outputs;
    /// Data-dependent sizes: int64 scalars the runtime reads back after a run; an output dim whose
    /// symbol names one is cut to its value (the compiler pads it to its largest size).
    std::vector<TensorBinding> sizes;
    uint64_t dramBytes = 0;      ///< size of the DRAM window the job needs
    uint64_t weightsOffset = 0;  ///< where the "weights" section's resident part is placed in the window
    /// Bytes [0, residentWeightBytes) of the "weights" section are uploaded once, when the model
    /// is loaded; the rest holds streamed weights (SegmentRecord::uploads).
    uint64_t residentWeightBytes = 0;
    std::vector<OpRecord> ops;
    std::vector<SegmentRecord> segments;  ///< at least one
    /// Shape buckets, smallest first (empty for a model of static shape); the fields above
    /// are then those of the first bucket.
    std::vector<BucketRecord> buckets;
    bool operator==(const ArtifactManifest&) const = default;
};

/// Names of the sections the runtime needs.
inline constexpr const char* kCommandsSection = "commands";
inline constexpr const char* kWeightsSection = "weights";
/// LLVM IR (text) of the CPU segments' kernels.
inline constexpr const char* kCpuSection = "cpu";

struct Artifact {
    ArtifactManifest manifest;
    std::map<std::string, std::vector<std::byte>> sections;
    /// Sections known by their size only, their bytes left in the file (ArtifactRead::TimingOnly):
    /// name -> bytes.
    std::map<std::string, uint64_t> unreadSections;

    /// A section's size, read or not; 0 when the artifact has no such section.
    uint64_t sectionBytes(const std::string& name) const;
};

/// The commands of every op of the manifest (its op table's count).
uint64_t commandCount(const ArtifactManifest& manifest);

/// The sections a run reads: weights, the NPU segments' command streams, the CPU code.
std::vector<std::string> runSections(const Artifact& artifact);

/// "seq=128".
std::string bucketLabel(const BucketRecord& bucket);
/// The artifact as compiled for bucket `index`: that bucket's bindings, window, op table and
/// command and weight sections under their plain names, and no buckets.
Artifact bucketArtifact(const Artifact& artifact, size_t index);

std::vector<std::byte> serializeArtifact(const Artifact& artifact);
/// Parses and checks magic, version, manifest and every section's checksum; throws InputError
/// prefixed with `origin`.
Artifact parseArtifact(std::span<const std::byte> bytes, const std::string& origin);

/// The manifest and each section's size and CRC-32 as JSON (what `npusim inspect --json` prints).
std::string artifactSummaryJson(const Artifact& artifact);

void writeArtifact(const std::filesystem::path& path, const Artifact& artifact);

/// What a reader takes from the file. Whole: every section. TimingOnly: a run that computes no
/// values never reads the weights' bytes (their upload only takes its time), so the weights
/// sections stay in the file, known by their size, unless a CPU segment of the host reads a
/// weight from them (a network's weights are most of its artifact).
enum class ArtifactRead { Whole, TimingOnly };
Artifact readArtifact(const std::filesystem::path& path, ArtifactRead read = ArtifactRead::Whole);

}  // namespace npusim
