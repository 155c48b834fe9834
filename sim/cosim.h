// The co-simulation top: host CPU, system bus, DRAM and the NPU (with its firmware) wired
// together, running one artifact through runtime -> driver -> firmware -> hardware.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arch/arch_config.h"
#include "arch/artifact.h"
#include "arch/run_timing.h"
#include "arch/tensor.h"
#include "arch/trace_event.h"
#include "driver/driver.h"
#include "hw_model/fault/fault_injector.h"
#include "hw_model/tensor/tensor_core.h"
#include "hw_model/vector/vector_core.h"
#include "rtl/rtl_log.h"
#include "runtime/buckets.h"
#include "runtime/runtime.h"

namespace npusim::sim {

/// What the NPU's masters moved through DRAM during a simulation.
struct DramTraffic {
    uint64_t bytesRead = 0, bytesWritten = 0;
    uint64_t transactions = 0;            ///< the NPU masters' bursts, reads and writes
    uint64_t rowHits = 0, rowMisses = 0;  ///< of all accesses, host copies included
    uint64_t correctedErrors = 0;  ///< single-bit errors the DRAM's ECC corrected
};

struct CoSimOptions {
    bool trace = true;                       ///< record unit timelines
    bool timingOnly = false;                 ///< compute and move no values; cycles unchanged
    uint64_t jobTimeoutCycles = runtime::kDefaultJobTimeoutCycles;  ///< a job running longer is reported as hung
    /// Steady-state inferences after the cold and the warm one; 0 runs the model once.
    int repeat = 0;
    /// Run the tensor unit's RTL core (Verilated systolic array) and/or the vector unit's
    /// (Verilated lanes) instead of their model cores, writing each one's waveforms to its VCD
    /// path when that is not empty.
    bool rtlTensor = false, rtlVector = false;
    std::string tensorVcd, vectorVcd;
    /// Counts the commands the NPU dispatches, over every run, as the simulation goes (null:
    /// none): a progress line reads it from another thread.
    std::atomic<uint64_t>* dispatched = nullptr;
    /// Faults to inject, and how often a failed job is run again.
    std::vector<hw::FaultSpec> faults;
    int jobRetries = 0;
};

/// What injected faults did: each one, whether it fired, the job failures the runtime retried
/// and the interrupts the driver found lost.
struct FaultOutcome {
    std::vector<hw::FaultInjector::Injected> injected;
    std::vector<std::string> retriedFailures;
    uint64_t lostInterrupts = 0;
    uint64_t correctedErrors = 0;  ///< by the DRAM's ECC, over the whole simulation
};

struct CoSimResult {
    /// The manifest that ran: the artifact's, or for a bucketed artifact its chosen bucket's.
    ArtifactManifest manifest;
    /// The shape bucket a bucketed artifact ran, chosen by the runtime from the inputs' size.
    std::optional<runtime::BucketChoice> bucket;
    /// In manifest order, at the inputs' size (a bucket run's cut back to the actual size).
    std::vector<Tensor> outputs;
    driver::JobResult job;
    trace::Recorder trace;
    DramTraffic dram;  ///< bytes moved by the NPU during the first run
    /// DRAM row misses of the first inference alone (its copies and its job, not the model's
    /// load): the row activations its energy counts.
    uint64_t inferenceRowMisses = 0;
    RunTiming timing;
    std::optional<rtl::RtlLog> rtl;  ///< what the RTL blocks did, when any ran
    std::optional<FaultOutcome> faults;  ///< when faults were injected
    /// Host seconds the NPU's units spent computing values, over every run of the model (none
    /// when timing only): the host math, apart from what simulating cost.
    double computeSeconds = 0;

    /// The outputs' bindings at the size they were cut to: the manifest's, along a bucket's dim
    /// at the actual size.
    std::vector<TensorBinding> outputBindings() const {
        return bucket ? runtime::resized(manifest.outputs, bucket->symbol, bucket->actual) : manifest.outputs;
    }
};

/// Elaborates the system for `config` and runs `program` on the host CPU with an opened
/// driver for the NPU; returns when the program does. SystemC allows one elaboration per
/// process: call once. Exceptions of the program propagate; a RunError about a failed job
/// gains the hardware's explanation of the fault.
/// `dramProbe`, when given, is set to a function the program can call for the traffic so far.
/// Compute cores that replace the units' model cores (RTL cores); null keeps the model's.
struct ComputeCores {
    std::unique_ptr<hw::TensorCore> tensor;
    std::unique_ptr<hw::VectorCore> vector;
};

/// What a whole simulation did, over every job it ran.
struct SystemTotals {
    DramTraffic dram;
    double computeSeconds = 0;  ///< host seconds the units spent computing values (Npu::computeSeconds)
};

/// `cores` replace the units' model cores where given; `faults`, when given, are injected;
/// `dispatched`, when given, counts the commands the NPU dispatches.
SystemTotals runSystem(const ArchConfig& config, trace::Recorder* recorder, bool timingOnly,
                      const std::function<void(driver::Driver&)>& program,
                      std::function<DramTraffic()>* dramProbe = nullptr, ComputeCores cores = {},
                      hw::FaultInjector* faults = nullptr, std::atomic<uint64_t>* dispatched = nullptr);

/// The VCD file of RTL block `block` for `--vcd path`: `path` itself when one block runs as
/// RTL, else `path` with ".<block>" before its extension.
std::string vcdPathFor(const std::string& path, const std::string& block, bool severalBlocks);

/// Host bytes simulating takes per command the NPU dispatches (the trace keeps its events).
inline constexpr uint64_t kSimulationBytesPerCommand = 400;
/// Refuses, with an InputError naming the op and the sizes, an artifact whose simulation is
/// estimated to need more than `limit` bytes: its sections, its DRAM window and
/// kSimulationBytesPerCommand per command of its ops, counted in op order.
void checkSimulationMemory(const Artifact& artifact, uint64_t limit);

/// runSystem with one model: loads `artifact`, runs it on `inputs` (1 + (repeat ? 1 + repeat : 0)
/// times) and returns the first run's outputs and job, and the cold/warm/steady timing. A
/// bucketed artifact takes inputs of any size its buckets hold: the runtime runs the smallest
/// bucket that does (runtime/buckets.h). Throws InputError for inputs that do not match the
/// artifact, RunError when the run fails.
CoSimResult runCoSimulation(const ArchConfig& config, const Artifact& artifact,
                            const std::map<std::string, Tensor>& inputs, const CoSimOptions& options);

}  // namespace npusim::sim
