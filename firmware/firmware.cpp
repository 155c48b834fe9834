// The firmware's job loop.
#include "firmware/firmware.h"

#include "arch/error.h"
#include "firmware/command_validator.h"

namespace npusim::firmware {
namespace {

uint64_t readWide(hw::ControlCoreHal& hal, uint32_t lo, uint32_t hi) {
    return uint64_t{hal.readRegister(lo)} | (uint64_t{hal.readRegister(hi)} << 32);
}

isa::Command jobLevel() {
    isa::Command command;
    command.opId = isa::kNoOp;
    return command;
}

}  // namespace

void Firmware::run(hw::ControlCoreHal& hal) {
    while (true) {
        hal.waitForDoorbell();
        runJob(hal);
    }
}

void Firmware::runJob(hw::ControlCoreHal& hal) {
    const uint64_t jobStart = hal.cycle();
    hal.writeRegister(regs::kStatus, static_cast<uint32_t>(regs::Status::Running));
    hal.writeRegister(regs::kErrorCode, static_cast<uint32_t>(regs::ErrorCode::None));
    if (!loadJob(hal, jobStart)) return;

    hal.setContextWindow(readWide(hal, regs::kContextBaseLo, regs::kContextBaseHi),
                         readWide(hal, regs::kContextSizeLo, regs::kContextSizeHi));
    const uint64_t dispatchCycles = hal.config().controlCore.dispatchCycles;
    hal.startJob();
    for (uint32_t index = 0; index < commands_.size(); ++index) {
        const isa::Command& command = commands_[index];
        if (command.opcode == isa::Opcode::End) break;
        hal.spendCycles(dispatchCycles, command);
        if (!hal.dispatch(command, index)) break;  // the job faulted: stop dispatching
    }
    const std::optional<hw::JobFault> fault = hal.waitForCompletion();
    if (fault) {
        finishJob(hal, jobStart, fault->code, fault->commandIndex);
    } else {
        finishJob(hal, jobStart, regs::ErrorCode::None, 0);
    }
}

bool Firmware::loadJob(hw::ControlCoreHal& hal, uint64_t jobStart) {
    const uint64_t address = readWide(hal, regs::kJobAddrLo, regs::kJobAddrHi);
    const uint32_t count = hal.readRegister(regs::kJobCommandCount);
    if (count == 0 || count > kMaxJobCommands) {
        finishJob(hal, jobStart, regs::ErrorCode::MissingEnd, 0);
        return false;
    }
    fetchBuffer_.resize(uint64_t{count} * isa::kCommandBytes);
    if (!hal.readMemory(address, fetchBuffer_)) {
        finishJob(hal, jobStart, regs::ErrorCode::CommandFetch, 0);
        return false;
    }

    const uint64_t windowSize = readWide(hal, regs::kContextSizeLo, regs::kContextSizeHi);
    const uint64_t validateCycles = hal.config().controlCore.validateCycles;
    commands_.clear();
    for (uint32_t i = 0; i < count; ++i) {
        const auto bytes = std::span(fetchBuffer_).subspan(uint64_t{i} * isa::kCommandBytes)
                               .first<isa::kCommandBytes>();
        isa::Command command;
        try {
            command = isa::decode(bytes);
        } catch (const InputError&) {
            hal.spendCycles(validateCycles, jobLevel());
            finishJob(hal, jobStart, regs::ErrorCode::IllegalOpcode, i);
            return false;
        }
        hal.spendCycles(validateCycles, command);
        regs::ErrorCode error = validateCommand(command, hal.config(), windowSize);
        const bool last = i + 1 == count;
        if (error == regs::ErrorCode::None && (command.opcode == isa::Opcode::End) != last) {
            error = regs::ErrorCode::MissingEnd;  // END must be the last command, and only it
        }
        if (error != regs::ErrorCode::None) {
            finishJob(hal, jobStart, error, i);
            return false;
        }
        commands_.push_back(command);
    }
    return true;
}

void Firmware::finishJob(hw::ControlCoreHal& hal, uint64_t jobStart, regs::ErrorCode error,
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
