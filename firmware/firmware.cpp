// The firmware's job loop.
#include "firmware/firmware.h"

#include <algorithm>
#include <span>
#include <string>

#include "arch/error.h"
#include "arch/isa_loops.h"
#include "firmware/command_validator.h"

namespace npusim::firmware {
namespace {

uint64_t readWide(ControlCoreHal& hal, uint32_t lo, uint32_t hi) {
    return uint64_t{hal.readRegister(lo)} | (uint64_t{hal.readRegister(hi)} << 32);
}

isa::Command jobLevel() {
    isa::Command command;
    command.opId = isa::kNoOp;
    return command;
}

}  // namespace

void Firmware::run(ControlCoreHal& hal) {
    while (true) {
        hal.waitForDoorbell();
        runJob(hal);
    }
}

void Firmware::runJob(ControlCoreHal& hal) {
    const uint64_t jobStart = hal.cycle();
    hal.writeRegister(regs::kStatus, static_cast<uint32_t>(regs::Status::Running));
    hal.writeRegister(regs::kErrorCode, static_cast<uint32_t>(regs::ErrorCode::None));
    const uint64_t address = readWide(hal, regs::kJobAddrLo, regs::kJobAddrHi);
    const uint32_t count = hal.readRegister(regs::kJobCommandCount);
    // Any length the count register holds: the stream is fetched a chunk at a time.
    if (count == 0) {
        finishJob(hal, jobStart, regs::ErrorCode::MissingEnd, 0);
        return;
    }
    const uint64_t windowSize = readWide(hal, regs::kContextSizeLo, regs::kContextSizeHi);
    hal.setContextWindow(readWide(hal, regs::kContextBaseLo, regs::kContextBaseHi), windowSize);
    // What an earlier context left in SRAM or the accumulator is not this job's to read.
    const uint32_t context = hal.readRegister(regs::kContextId);
    if (lastContext_ != 0 && context != lastContext_) hal.scrubOnchipMemory();
    lastContext_ = context;
    hal.startJob();

    const uint64_t dispatchCycles = hal.config().controlCore.dispatchCycles;
    // The watchdog: a job still running past its cycle budget is stopped, checked before each
    // dispatch and while waiting for completion.
    const uint64_t budget = readWide(hal, regs::kWatchdogLo, regs::kWatchdogHi);
    const uint64_t deadline = budget == 0 ? 0 : jobStart + budget;
    std::optional<JobFault> fault;
    bool dispatching = true;
    // Before each dispatch the watchdog; false once the job is stopped.
    auto dispatch = [&](const isa::Command& command, uint32_t index) {
        if (deadline != 0 && hal.cycle() >= deadline) {
            fault = hal.abortJob({regs::ErrorCode::Watchdog, index, "the job was still running at its cycle budget"});
            return false;
        }
        hal.spendCycles(dispatchCycles, command);
        return hal.dispatch(command, index, deadline);  // false: the job faulted
    };
    window_.clear();
    windowFirst_ = 0;
    for (uint32_t index = 0; index < count && dispatching && !fault;) {
        if (std::optional<JobFault> invalid = fetch(hal, address, index, 1, count, windowSize)) {
            // Earlier chunks may be running: stop them before reporting the command at fault.
            fault = hal.abortJob(*invalid);
            break;
        }
        const isa::Command& command = window_[index - windowFirst_];
        if (command.opcode == isa::Opcode::End) break;
        if (command.opcode == isa::Opcode::Step) {
            fault = hal.abortJob({regs::ErrorCode::BadLoop, index, "command " + std::to_string(index) + " is a step outside a loop"});
            break;
        }
        if (command.opcode != isa::Opcode::Loop) {
            dispatching = dispatch(command, index);
            ++index;
            continue;
        }
        const uint64_t extent = isa::loopExtent(command);
        if (extent > isa::kMaxLoopDescriptors || index + extent >= count) {
            fault = hal.abortJob({regs::ErrorCode::BadLoop, index, "the loop at command " + std::to_string(index) + " spans " +
                                                                      std::to_string(extent) + " descriptors, past " +
                                                                      (index + extent >= count ? "the job's end" : "the loop buffer")});
            break;
        }
        const auto size = static_cast<uint32_t>(extent);
        if (std::optional<JobFault> invalid = fetch(hal, address, index, size, count, windowSize)) {
            fault = hal.abortJob(*invalid);
            break;
        }
        const auto loop = std::span<const isa::Command>(window_).subspan(index - windowFirst_, size);
        if (std::optional<std::string> why = isa::checkLoop(loop)) {
            fault = hal.abortJob({regs::ErrorCode::BadLoop, index, "the loop at command " + std::to_string(index) + " cannot run: " + *why});
            break;
        }
        // The loop unit checks every command it generates as the fetch checks descriptors,
        // without the control core's validation cycles; a bad one stops the job at the body
        // descriptor it came from.
        isa::expandLoop(loop, [&](const isa::Command& generated, size_t at) {
            const auto source = static_cast<uint32_t>(index + at);
            if (const regs::ErrorCode error = validateCommand(generated, hal.config(), windowSize); error != regs::ErrorCode::None) {
                fault = hal.abortJob({error, source, "command " + std::to_string(source) + " generated as (" +
                                                         isa::disassemble(generated) + ") by the loop at command " +
                                                         std::to_string(index) + " is invalid"});
                return false;
            }
            dispatching = dispatch(generated, source);
            return dispatching;
        });
        index += size;
    }
    if (!fault) fault = hal.waitForCompletion(deadline);
    if (fault) {
        finishJob(hal, jobStart, fault->code, fault->commandIndex);
    } else {
        finishJob(hal, jobStart, regs::ErrorCode::None, 0);
    }
}

std::optional<JobFault> Firmware::fetch(ControlCoreHal& hal, uint64_t address, uint32_t index, uint32_t count,
                                            uint32_t total, uint64_t windowSize) {
    const auto end = static_cast<uint32_t>(windowFirst_ + window_.size());
    if (index + count <= end) return std::nullopt;
    const uint32_t behind = std::min(index - windowFirst_, end - windowFirst_);
    window_.erase(window_.begin(), window_.begin() + behind);
    windowFirst_ += behind;
    for (uint32_t first = end; first < index + count; first += kFetchChunk) {
        if (auto invalid = loadChunk(hal, address, first, std::min(kFetchChunk, total - first), total, windowSize)) return invalid;
    }
    return std::nullopt;
}

std::optional<JobFault> Firmware::loadChunk(ControlCoreHal& hal, uint64_t address,
                                                uint32_t first, uint32_t count, uint32_t total,
                                                uint64_t windowSize) {
    fetchBuffer_.resize(uint64_t{count} * isa::kCommandBytes);
    if (!hal.readMemory(address + uint64_t{first} * isa::kCommandBytes, fetchBuffer_)) {
        return JobFault{regs::ErrorCode::CommandFetch, first, "the command buffer cannot be read"};
    }
    const uint64_t validateCycles = hal.config().controlCore.validateCycles;
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t index = first + i;
        const auto bytes = std::span(fetchBuffer_).subspan(uint64_t{i} * isa::kCommandBytes)
                               .first<isa::kCommandBytes>();
        isa::Command command;
        try {
            command = isa::decode(bytes);
        } catch (const InputError& e) {
            hal.spendCycles(validateCycles, jobLevel());
            return JobFault{regs::ErrorCode::IllegalOpcode, index, e.what()};
        }
        hal.spendCycles(validateCycles, command);
        regs::ErrorCode error = validateCommand(command, hal.config(), windowSize);
        if (error == regs::ErrorCode::None && (command.opcode == isa::Opcode::End) != (index + 1 == total)) {
            error = regs::ErrorCode::MissingEnd;  // END must be the last command, and only it
        }
        if (error != regs::ErrorCode::None) {
            return JobFault{error, index, "command " + std::to_string(index) + " (" +
                                                  isa::disassemble(command) + ") is invalid"};
        }
        window_.push_back(command);
    }
    return std::nullopt;
}

void Firmware::finishJob(ControlCoreHal& hal, uint64_t jobStart, regs::ErrorCode error,
                         uint32_t commandIndex) {
    const uint64_t cycles = hal.cycle() - jobStart;
    hal.writeRegister(regs::kJobCyclesLo, static_cast<uint32_t>(cycles));
    hal.writeRegister(regs::kJobCyclesHi, static_cast<uint32_t>(cycles >> 32));
    hal.writeRegister(regs::kErrorCode, static_cast<uint32_t>(error));
    hal.writeRegister(regs::kErrorCommand, commandIndex);
    const bool failed = error != regs::ErrorCode::None;
    hal.writeRegister(regs::kStatus,
                      static_cast<uint32_t>(failed ? regs::Status::Error : regs::Status::Done));
    hal.raiseInterrupt(failed ? regs::kIrqJobError : regs::kIrqJobDone);
}

}  // namespace npusim::firmware
