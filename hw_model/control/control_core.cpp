// The control core's HAL on top of SystemC: every call advances time as the hardware would.
#include "hw_model/control/control_core.h"

#include <algorithm>

#include "hw_model/common/memory_access.h"

namespace npusim::hw {

ControlCore::ControlCore(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
                         NpuRegisters& registers, CommandProcessor& processor,
                         ContextWindow& window, BankedMemory& sram, BankedMemory& accumulator,
                         firmware::ControlProgram& program, trace::Recorder* recorder)
    : sc_module(name),
      memSocket("memSocket"),
      config_(config),
      clock_(clock),
      registers_(registers),
      processor_(processor),
      window_(window),
      sram_(sram),
      accumulator_(accumulator),
      program_(program),
      trace_(recorder, this->name(), trace::UnitKind::ControlCore) {
    SC_HAS_PROCESS(ControlCore);
    SC_THREAD(run);
}

void ControlCore::run() { program_.run(*this); }

void ControlCore::waitForDoorbell() { sc_core::wait(registers_.doorbell()); }

void ControlCore::catchUp() {
    if (ahead_ == 0) return;
    sc_core::wait(clock_.cycles(ahead_));
    ahead_ = 0;
}

uint32_t ControlCore::readRegister(uint32_t offset) {
    catchUp();
    return registers_.read(offset);
}

void ControlCore::writeRegister(uint32_t offset, uint32_t value) {
    catchUp();
    registers_.write(offset, value);
}

void ControlCore::raiseInterrupt(uint32_t bits) {
    catchUp();
    registers_.raiseInterrupt(bits);
}

bool ControlCore::readMemory(uint64_t address, std::span<std::byte> bytes) {
    catchUp();
    AccessTag tag;  // job-level work, attributed to no op
    tag.initiator = trace_.id();
    tag.opId = isa::kNoOp;
    tag.kind = isa::CommandKind::Sync;
    const uint64_t start = clock_.now();
    try {
        const MemoryResponse response =
            memory_.access(forwardPath(memSocket), {tlm::TLM_READ_COMMAND, address, bytes.data(), 1, bytes.size(),
                                      bytes.size()},
                         tag, sc_core::SC_ZERO_TIME, trace_.name(), regs::ErrorCode::CommandFetch);
        sc_core::wait(clock_.cycles(clock_.toCyclesCeil(response.done)));
    } catch (const UnitFault&) {
        return false;
    }
    trace_.commandFetch(start, clock_.now(), bytes.size());
    return true;
}

void ControlCore::spendCycles(uint64_t cycles, const isa::Command& command) {
    // Work that touches no hardware runs ahead of simulated time; the next hardware access
    // catches up (one wait instead of one per command).
    const uint64_t start = clock_.now() + ahead_;
    ahead_ += cycles;
    trace_.busy(command, start, start + cycles);
}

void ControlCore::scrubOnchipMemory() {
    // Both memories clear side by side while the units are idle.
    ahead_ += std::max(sram_.scrub(), accumulator_.scrub());
    catchUp();
}

void ControlCore::startJob() {
    catchUp();
    lastFault_.reset();
    processor_.beginJob();
}

bool ControlCore::dispatch(const isa::Command& command, uint32_t index, uint64_t deadline) {
    // The dispatch completes at the program's own time; a full queue holds it until a slot
    // frees, which is a queue_full stall only if that is later than the program's time.
    const uint64_t ready = clock_.now() + ahead_;
    if (!processor_.waitForSlot(command, deadline)) return false;
    const uint64_t now = clock_.now();
    if (now > ready) trace_.stall(trace::StallReason::QueueFull, command, ready, now);
    const uint64_t dispatched = std::max(ready, now);
    ahead_ = dispatched - now;
    processor_.push(command, index, dispatched);
    return true;
}

JobFault ControlCore::abortJob(const JobFault& fault) {
    catchUp();
    processor_.abort(fault);
    return *waitForCompletion(0);
}

std::optional<JobFault> ControlCore::waitForCompletion(uint64_t deadline) {
    catchUp();
    std::optional<JobFault> fault = processor_.finishJob(deadline);
    if (fault) lastFault_ = fault;
    return fault;
}

void ControlCore::setContextWindow(uint64_t base, uint64_t size) {
    catchUp();
    window_.base = base;
    window_.size = size;
}

}  // namespace npusim::hw
