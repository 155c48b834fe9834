// The control core's hardware abstraction, as the firmware needs it: what the program running on
// the core can do. The firmware owns it; the hardware model's control core implements it. Free
// of SystemC, so firmware builds and tests without the simulator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "arch/job_fault.h"
#include "arch/register_map.h"

namespace npusim::firmware {

class ControlCoreHal {
public:
    virtual ~ControlCoreHal() = default;

    /// Blocks until the host rings the doorbell.
    virtual void waitForDoorbell() = 0;
    virtual uint32_t readRegister(uint32_t offset) = 0;
    virtual void writeRegister(uint32_t offset, uint32_t value) = 0;
    /// Sets IRQ status bits (arch/register_map.h IrqBit) towards the host.
    virtual void raiseInterrupt(uint32_t bits) = 0;
    /// Reads system memory (e.g. a command buffer) and blocks for the access time; false when
    /// the bus answers with an error.
    virtual bool readMemory(uint64_t address, std::span<std::byte> bytes) = 0;
    /// Accounts `cycles` of work done by the program on behalf of `command`.
    virtual void spendCycles(uint64_t cycles, const isa::Command& command) = 0;
    /// Prepares the units for a job: empty queues, zero semaphores.
    virtual void startJob() = 0;
    /// Pushes command `index` of the job into its unit's queue, blocking while the queue is
    /// full; false when the job has faulted meanwhile (the command is dropped). A queue still
    /// full at cycle `deadline` (0: none) stops the job with a watchdog fault.
    virtual bool dispatch(const isa::Command& command, uint32_t index, uint64_t deadline) = 0;
    /// After the last dispatch: blocks until every queue has drained and every unit is idle,
    /// or until the job faulted and the units stopped; a job still running at cycle
    /// `deadline` (0: none) is stopped with a watchdog fault. Returns the fault, if any.
    virtual std::optional<JobFault> waitForCompletion(uint64_t deadline) = 0;
    /// Stops the running job with `fault`: queued commands are dropped and the units finish
    /// what they execute. Returns the job's fault (an earlier one wins).
    virtual JobFault abortJob(const JobFault& fault) = 0;
    /// Clears SRAM and the accumulator, so that a job of another context finds nothing of
    /// this one's data on chip; blocks for the time it takes.
    virtual void scrubOnchipMemory() = 0;
    /// Programs the DRAM window that DMA addresses of the job are relative to.
    virtual void setContextWindow(uint64_t base, uint64_t size) = 0;
    /// Current cycle.
    virtual uint64_t cycle() = 0;
    /// The hardware's parameters, which bound what a command may ask for.
    virtual const ArchConfig& config() const = 0;
};

/// A program for the control core; run() never returns while the NPU is powered.
class ControlProgram {
public:
    virtual ~ControlProgram() = default;
    virtual void run(ControlCoreHal& hal) = 0;
};

}  // namespace npusim::firmware
