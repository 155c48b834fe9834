// The runtime: loads an artifact into a driver context (resident weights uploaded once, CPU
// code JIT-compiled), binds inputs, runs the segments in order (NPU segments as jobs, CPU
// segments on the host between them, streamed weights copied in before the segment that needs
// them) and reads the outputs back. It sees the driver API and nothing below it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "arch/artifact.h"
#include "arch/tensor.h"
#include "arch/trace_event.h"
#include "driver/driver.h"
#include "runtime/command_jobs.h"
#include "runtime/cpu_code.h"

namespace npusim::runtime {

/// A segment ready to run: an NPU segment's resident command buffer or a CPU segment's
/// kernel. A stream device memory could not hold runs as a chain of `jobs` (planCommandJobs),
/// each copied into the model's staging buffer when its turn comes.
struct LoadedSegment {
    driver::CommandBuffer commands;
    CpuCode::Kernel kernel = nullptr;
    std::vector<CommandJob> jobs;
};

/// An artifact resident on the device: its context (weights uploaded), command buffers and
/// JIT-compiled kernels, one per segment of the manifest. It borrows its artifact, which must
/// outlive it: the sections are read while the model runs, and a network's are too large to copy.
struct LoadedModel {
    const Artifact* artifact = nullptr;
    driver::ContextId context = 0;
    std::vector<LoadedSegment> segments;
    /// The buffer the streamed segments' jobs are copied into, one at a time (capacity 0 when
    /// every stream is resident).
    driver::CommandBuffer staging;
    std::shared_ptr<const CpuCode> cpu;  ///< owns the kernels; empty without CPU segments
};

struct RunResult {
    std::vector<Tensor> outputs;  ///< in manifest order, cut to their data-dependent sizes
    /// The whole run: from the first segment's start (a job's doorbell, or the first host copy)
    /// to the end of the last one.
    driver::JobResult job;
    /// Jobs that failed and were run again (RuntimeOptions::jobRetries): what each failure was.
    std::vector<std::string> retriedFailures;
};

/// How the host runs CPU segments.
struct HostOptions {
    double cpuOpsPerCycle = 1;  ///< kernel operations per NPU cycle (ArchConfig::host)
    trace::Recorder* trace = nullptr;  ///< where host copies and kernels are recorded, if anywhere
    /// How often a job the NPU fails (an error code, its watchdog, a timeout) is run again
    /// before the run fails: the NPU takes the next job after a failed one.
    int jobRetries = 0;
    /// The NPU computes no values (a timing-only run): weights, which only its DMAs read from
    /// device memory (the host reads its own copy), are uploaded for their time, not stored.
    bool timingOnly = false;
};

/// A job's cycle budget (the firmware's watchdog) unless the user gives another.
inline constexpr uint64_t kDefaultJobTimeoutCycles = 4'000'000'000;

class Runtime {
public:
    /// `timeoutCycles` bounds every job; a job that takes longer is reported as hung.
    Runtime(driver::Driver& driver, uint64_t timeoutCycles, HostOptions host = {});

    /// Creates the artifact's context, uploads its resident weights and command streams (a
    /// stream device memory cannot hold beside them gets a staging buffer and runs as a chain of
    /// jobs) and compiles its CPU code. The model borrows `artifact` (LoadedModel).
    LoadedModel load(const Artifact& artifact);
    LoadedModel load(Artifact&&) = delete;  ///< a temporary would not outlive the model
    /// Checks the inputs against the manifest (InputError naming the input), uploads them,
    /// runs every segment (after copying in the weights it streams) and reads every output.
    /// Inputs named in `resident` are already in device memory at their bindings (a KV cache
    /// the caller keeps there across runs): they are neither given nor uploaded.
    RunResult run(const LoadedModel& model, const std::map<std::string, Tensor>& inputs,
                  const std::set<std::string>& resident = {});
    void unload(const LoadedModel& model);

private:
    /// Copies a CPU segment's inputs to the host, runs its kernel for its operations' time and
    /// copies its outputs back; returns the cycle it ends.
    uint64_t runOnHost(const LoadedModel& model, const SegmentRecord& segment, CpuCode::Kernel kernel);
    /// The NPU segments' command streams: resident while device memory holds them, the rest
    /// planned as jobs that share one staging buffer.
    void loadCommands(LoadedModel& model, const std::vector<const std::vector<std::byte>*>& streams);
    /// Releases the model's command buffers and context.
    void release(const LoadedModel& model);
    /// Runs an NPU segment: its stream, or each of its jobs in turn.
    driver::JobResult runSegment(const LoadedModel& model, size_t index, RunResult& result);
    /// One job, run again on failure as often as HostOptions::jobRetries allows; a job run again
    /// spans its failed attempts (their cycles, like their DRAM bytes, are the run's).
    driver::JobResult runJob(const LoadedModel& model, const driver::CommandBuffer& commands, RunResult& result);
    /// Copies a segment's streamed weights into the window; returns the cycle the copies end.
    uint64_t uploadWeights(const LoadedModel& model, const SegmentRecord& segment);
    /// Writes `bytes` of the weights section from `source` at `offset` of the model's window, or
    /// only takes their time in a timing-only run (whose artifact may hold the weights' size only).
    void writeWeights(const LoadedModel& model, uint64_t offset, uint64_t source, uint64_t bytes);
    /// An interval of the host's track in host_.trace, when there is one.
    void recordHost(trace::EventType type, uint32_t opId, uint64_t from, uint64_t to, uint64_t bytes);

    driver::Driver& driver_;
    uint64_t timeoutCycles_;
    HostOptions host_;
    std::optional<uint16_t> hostUnit_;  ///< the host's track in host_.trace, made at the first CPU segment
};

}  // namespace npusim::runtime
