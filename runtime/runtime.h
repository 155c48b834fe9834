// The runtime: loads an artifact into a driver context (weights uploaded once), binds inputs,
// runs the job and reads the outputs back. It sees the driver API and nothing below it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arch/artifact.h"
#include "arch/tensor.h"
#include "driver/driver.h"

namespace npusim::runtime {

/// An artifact resident on the device: its context (weights uploaded) and command buffer.
struct LoadedModel {
    Artifact artifact;
    driver::ContextId context = 0;
    driver::CommandBuffer commands;
};

struct RunResult {
    std::vector<Tensor> outputs;  ///< in manifest order
    driver::JobResult job;
};

class Runtime {
public:
    /// `timeoutCycles` bounds every job; a job that takes longer is reported as hung.
    Runtime(driver::Driver& driver, uint64_t timeoutCycles);

    /// Creates the artifact's context and uploads its weights and command stream.
    LoadedModel load(Artifact artifact);
    /// Checks the inputs against the manifest (InputError naming the input), uploads them,
    /// runs the command stream and reads every output.
    RunResult run(const LoadedModel& model, const std::map<std::string, Tensor>& inputs);
    void unload(const LoadedModel& model);

private:
    driver::Driver& driver_;
    uint64_t timeoutCycles_;
};

}  // namespace npusim::runtime
