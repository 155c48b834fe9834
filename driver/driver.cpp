// Driver operations: probing, contexts, job submission and completion.
#include "driver/driver.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "arch/error.h"
#include "arch/isa.h"

namespace npusim::driver {
namespace {

/// Cycles the driver waits beyond a job's budget for the watchdog's interrupt.
constexpr uint64_t kInterruptSlackCycles = 100'000;
/// While it waits for the interrupt, the driver reads the status register this often: a job
/// whose interrupt was lost is found finished there.
constexpr uint64_t kStatusPollCycles = 1'000'000;

}  // namespace

Driver::Driver(DeviceBus& bus, uint64_t dramBase, uint64_t dramSize)
    : bus_(bus), memory_(dramBase, dramSize) {}

void Driver::open() {
    const uint32_t id = bus_.readRegister(regs::kDeviceId);
    if (id != regs::kDeviceIdValue) {
        throw RunError("no NPU found: device id register reads " + std::to_string(id));
    }
    bus_.writeRegister(regs::kIrqStatus, ~0u);
    bus_.writeRegister(regs::kIrqMask, regs::kIrqJobDone | regs::kIrqJobError);
}

ContextId Driver::createContext(uint64_t windowBytes) {
    const ContextId id = nextContext_++;
    contexts_[id] = Context{memory_.allocate(windowBytes), windowBytes};
    return id;
}

void Driver::destroyContext(ContextId id) {
    memory_.release(context(id).base);
    contexts_.erase(id);
}

const Driver::Context& Driver::context(ContextId id) const {
    const auto it = contexts_.find(id);
    if (it == contexts_.end()) throw std::out_of_range("unknown context " + std::to_string(id));
    return it->second;
}

uint64_t Driver::inWindow(ContextId id, uint64_t offset, uint64_t bytes, const char* what) const {
    const Context& ctx = context(id);
    if (offset > ctx.size || bytes > ctx.size - offset) throw std::out_of_range(std::string(what) + " outside context window");
    return ctx.base + offset;
}

void Driver::write(ContextId id, uint64_t offset, std::span<const std::byte> bytes) {
    bus_.writeMemory(inWindow(id, offset, bytes.size(), "write"), bytes);
}

void Driver::writeTimingOnly(ContextId id, uint64_t offset, uint64_t bytes) {
    bus_.writeMemoryTimingOnly(inWindow(id, offset, bytes, "write"), bytes);
}

void Driver::read(ContextId id, uint64_t offset, std::span<std::byte> bytes) {
    bus_.readMemory(inWindow(id, offset, bytes.size(), "read"), bytes);
}

void Driver::writeWide(uint32_t lo, uint32_t hi, uint64_t value) {
    bus_.writeRegister(lo, static_cast<uint32_t>(value));
    bus_.writeRegister(hi, static_cast<uint32_t>(value >> 32));
}

CommandBuffer Driver::uploadCommands(std::span<const std::byte> commands) {
    return writeCommands(allocateCommands(commands.size()), commands);
}

CommandBuffer Driver::allocateCommands(uint64_t bytes) { return {memory_.allocate(bytes), 0, bytes}; }

CommandBuffer Driver::writeCommands(const CommandBuffer& buffer, std::span<const std::byte> commands) {
    if (commands.size() > buffer.capacity) throw std::out_of_range("command stream larger than its buffer");
    bus_.writeMemory(buffer.address, commands);
    CommandBuffer holding = buffer;
    holding.commands = static_cast<uint32_t>(commands.size() / isa::kCommandBytes);
    return holding;
}

void Driver::releaseCommands(const CommandBuffer& buffer) { memory_.release(buffer.address); }

JobResult Driver::run(ContextId id, std::span<const std::byte> commands, uint64_t timeoutCycles) {
    const CommandBuffer buffer = uploadCommands(commands);
    struct Release {
        Driver& driver;
        CommandBuffer buffer;
        ~Release() { driver.releaseCommands(buffer); }
    } release{*this, buffer};
    return run(id, buffer, timeoutCycles);
}

JobResult Driver::run(ContextId id, const CommandBuffer& buffer, uint64_t timeoutCycles) {
    const Context& ctx = context(id);
    writeWide(regs::kJobAddrLo, regs::kJobAddrHi, buffer.address);
    bus_.writeRegister(regs::kJobCommandCount, buffer.commands);
    bus_.writeRegister(regs::kContextId, id);
    writeWide(regs::kContextBaseLo, regs::kContextBaseHi, ctx.base);
    writeWide(regs::kContextSizeLo, regs::kContextSizeHi, ctx.size);
    writeWide(regs::kWatchdogLo, regs::kWatchdogHi, timeoutCycles);
    bus_.writeRegister(regs::kDoorbell, 1);
    JobResult result;
    result.startCycle = bus_.nowCycles();

    // The firmware's watchdog stops the job at the budget and raises the error interrupt; the
    // driver's own timeout, later, catches an NPU that does not answer at all. Between, it
    // polls the status: a finished job whose interrupt never came is taken as finished.
    const uint64_t limit = timeoutCycles + timeoutCycles / 8 + kInterruptSlackCycles;
    for (uint64_t waited = 0;;) {
        const uint64_t slice = std::min(kStatusPollCycles, limit - waited);
        if (bus_.waitForInterrupt(slice)) break;
        waited += slice;
        const auto status = static_cast<regs::Status>(bus_.readRegister(regs::kStatus));
        if (status == regs::Status::Done || status == regs::Status::Error) {
            ++lostInterrupts_;
            break;
        }
        if (waited >= limit) {
            throw RunError("NPU job timed out after " + std::to_string(timeoutCycles) +
                           " cycles without an interrupt (status " + std::to_string(static_cast<uint32_t>(status)) + ")");
        }
    }
    const uint32_t irq = bus_.readRegister(regs::kIrqStatus);
    bus_.writeRegister(regs::kIrqStatus, irq);  // acknowledge
    result.cycles = uint64_t{bus_.readRegister(regs::kJobCyclesLo)} |
                    (uint64_t{bus_.readRegister(regs::kJobCyclesHi)} << 32);
    const auto error = static_cast<regs::ErrorCode>(bus_.readRegister(regs::kErrorCode));
    if ((irq & regs::kIrqJobError) || error != regs::ErrorCode::None) {
        const std::string detail = explain_ ? explain_() : std::string();
        const uint32_t command = bus_.readRegister(regs::kErrorCommand);
        throw JobError("NPU rejected the job: " + std::string(regs::errorCodeName(error)) + " at command " +
                           std::to_string(command) + (detail.empty() ? "" : ": " + detail),
                       error, command);
    }
    return result;
}

}  // namespace npusim::driver
