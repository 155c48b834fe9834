// The runtime: loads an artifact into a driver context (weights uploaded once, CPU code
// JIT-compiled), binds inputs, runs the segments in order (NPU segments as jobs, CPU segments
// on the host between them) and reads the outputs back. It sees the driver API and nothing below it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arch/artifact.h"
#include "arch/tensor.h"
#include "arch/trace_event.h"
#include "driver/driver.h"
#include "runtime/command_jobs.h"
#include "runtime/cpu_code.h"

namespace npusim::runtime {

/// The size of the jobs a stream too large for device memory is cut into.
inline constexpr uint64_t kStreamedJobBytes = uint64_t{4} << 20;

/// A segment ready to run: an NPU segment's command buffer or a CPU segment's kernel. A stream
/// device memory could not hold runs as a chain of `jobs` (planCommandJobs), each copied into
/// `commands`, a buffer as large as the largest, when its turn comes.
struct LoadedSegment {
    driver::CommandBuffer commands;
    CpuCode::Kernel kernel = nullptr;
    std::vector<CommandJob> jobs;
};

/// An artifact resident on the device: its context (weights uploaded), command buffers and
/// JIT-compiled kernels, one per segment of the manifest.
struct LoadedModel {
    Artifact artifact;
    driver::ContextId context = 0;
    std::vector<LoadedSegment> segments;
    std::shared_ptr<const CpuCode> cpu;  ///< owns the kernels; empty without CPU segments
};

struct RunResult {
    std::vector<Tensor> outputs;  ///< in manifest order
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
};

class Runtime {
public:
    /// `timeoutCycles` bounds every job; a job that takes longer is reported as hung.
    Runtime(driver::Driver& driver, uint64_t timeoutCycles, HostOptions host = {});

    /// Creates the artifact's context, uploads its weights and command streams (a stream device
    /// memory cannot hold beside them gets a staging buffer and runs as a chain of jobs) and
    /// compiles its CPU code.
    LoadedModel load(Artifact artifact);
    /// Checks the inputs against the manifest (InputError naming the input), uploads them,
    /// runs every segment and reads every output.
    RunResult run(const LoadedModel& model, const std::map<std::string, Tensor>& inputs);
    void unload(const LoadedModel& model);

private:
    /// Copies a CPU segment's inputs to the host, runs its kernel for its operations' time and
    /// copies its outputs back; returns the cycle it ends.
    uint64_t runOnHost(const LoadedModel& model, const SegmentRecord& segment, CpuCode::Kernel kernel);
    /// An NPU segment's command buffer: its whole stream, or one planned job at a time.
    LoadedSegment loadCommands(const std::vector<std::byte>& stream);
    /// Runs an NPU segment: its stream, or each of its jobs in turn.
    driver::JobResult runSegment(const LoadedModel& model, size_t index, RunResult& result);
    /// One job, run again on failure as often as HostOptions::jobRetries allows.
    driver::JobResult runJob(const LoadedModel& model, const driver::CommandBuffer& commands, RunResult& result);

    driver::Driver& driver_;
    uint64_t timeoutCycles_;
    HostOptions host_;
    std::optional<uint16_t> hostUnit_;  ///< the host's track in host_.trace, made at the first CPU segment
};

}  // namespace npusim::runtime
