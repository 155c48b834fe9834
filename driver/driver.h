// The host driver: owns the NPU's registers and device memory, gives each client a context
// (a DRAM window the NPU confines its DMAs to), and runs jobs to completion or error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>

#include "arch/error.h"
#include "arch/register_map.h"
#include "driver/device_bus.h"
#include "driver/device_memory.h"

namespace npusim::driver {

using ContextId = uint32_t;

/// How a job ended, as the NPU reported it.
struct JobResult {
    uint64_t startCycle = 0;  ///< the cycle the doorbell reached the NPU
    uint64_t cycles = 0;      ///< NPU cycles from doorbell to completion
};

/// A job the NPU stopped with an error: the error code and the index, in the job's command
/// buffer, of the command it stopped at.
class JobError : public RunError {
public:
    JobError(const std::string& message, regs::ErrorCode code, uint32_t commandIndex)
        : RunError(message), code(code), commandIndex(commandIndex) {}
    regs::ErrorCode code;
    uint32_t commandIndex;
};

/// An encoded command stream resident in driver-owned device memory (outside every context
/// window), uploaded once and run as often as needed.
struct CommandBuffer {
    uint64_t address = 0;
    uint32_t commands = 0;  ///< of the stream it holds now
    uint64_t capacity = 0;  ///< bytes
};

class Driver {
public:
    /// `dramBase`/`dramSize`: the physical range of device memory the driver may allocate.
    Driver(DeviceBus& bus, uint64_t dramBase, uint64_t dramSize);

    /// Checks the device identifies itself and enables its interrupts; throws RunError if not.
    void open();

    ContextId createContext(uint64_t windowBytes);
    void destroyContext(ContextId context);

    /// Copies into / out of a context's window; ranges outside it throw std::out_of_range.
    void write(ContextId context, uint64_t offset, std::span<const std::byte> bytes);
    /// A write of `bytes` bytes that takes write's time and stores nothing.
    void writeTimingOnly(ContextId context, uint64_t offset, uint64_t bytes);
    void read(ContextId context, uint64_t offset, std::span<std::byte> bytes);

    /// Copies an encoded command stream into device memory.
    CommandBuffer uploadCommands(std::span<const std::byte> commands);
    /// Device memory for command streams of up to `bytes`, to be filled by writeCommands.
    CommandBuffer allocateCommands(uint64_t bytes);
    /// Copies an encoded stream into `buffer`'s memory (std::out_of_range beyond its capacity);
    /// returns the buffer as holding it.
    CommandBuffer writeCommands(const CommandBuffer& buffer, std::span<const std::byte> commands);
    /// The largest block of device memory a context or command buffer could get now.
    uint64_t largestFreeBlock() const { return memory_.largestFree(); }
    void releaseCommands(const CommandBuffer& buffer);

    /// Starts the job in `buffer` on the context and waits for its interrupt (polling the
    /// status meanwhile: a job whose interrupt is lost is found finished). Throws RunError
    /// naming the firmware's error code and command index when the NPU rejects the job, or
    /// when it has not finished within `timeoutCycles` and some slack.
    JobResult run(ContextId context, const CommandBuffer& buffer, uint64_t timeoutCycles);
    /// uploadCommands, run and releaseCommands: a one-off job.
    JobResult run(ContextId context, std::span<const std::byte> commands, uint64_t timeoutCycles);

    /// A source of the hardware's own explanation of a failed job (a model can tell more than
    /// the registers), appended to the driver's errors.
    void explainFaultsWith(std::function<std::string()> explain) { explain_ = std::move(explain); }

    /// Jobs found finished by polling the status because their interrupt never arrived.
    uint64_t lostInterrupts() const { return lostInterrupts_; }

    /// The host's view of time, in NPU clock cycles.
    uint64_t nowCycles() { return bus_.nowCycles(); }
    /// Host work between device accesses (a CPU segment's kernel) taking `cycles` NPU cycles.
    void hostCompute(uint64_t cycles) { bus_.compute(cycles); }

private:
    struct Context {
        uint64_t base = 0, size = 0;
    };
    const Context& context(ContextId id) const;
    /// The physical address of [offset, offset + bytes) of a context's window; std::out_of_range
    /// naming `what` when the range leaves the window.
    uint64_t inWindow(ContextId id, uint64_t offset, uint64_t bytes, const char* what) const;
    void writeWide(uint32_t lo, uint32_t hi, uint64_t value);

    DeviceBus& bus_;
    DeviceMemory memory_;
    std::map<ContextId, Context> contexts_;
    ContextId nextContext_ = 1;
    uint64_t lostInterrupts_ = 0;
    std::function<std::string()> explain_;
};

}  // namespace npusim::driver
