// The control core: runs a ControlProgram (the firmware) in an SC_THREAD and gives it the
// firmware's HAL (firmware/control_core_hal.h), implemented on the NPU's registers, command
// processor and memory port.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw_model/command/command_processor.h"
#include "hw_model/common/clock.h"
#include "hw_model/common/memory_access.h"
#include "hw_model/common/unit_trace.h"
#include "hw_model/control/context_window.h"
#include "firmware/control_core_hal.h"
#include "hw_model/memory/banked_memory.h"
#include "hw_model/mmio/npu_registers.h"

namespace npusim::hw {

class ControlCore : public sc_core::sc_module, private firmware::ControlCoreHal {
public:
    /// Physical system addresses (command buffers in DRAM).
    tlm_utils::simple_initiator_socket<ControlCore> memSocket;

    ControlCore(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
                NpuRegisters& registers, CommandProcessor& processor, ContextWindow& window,
                BankedMemory& sram, BankedMemory& accumulator, firmware::ControlProgram& program,
                trace::Recorder* recorder);

    /// The fault that stopped the current or last job, if it failed, for messages beyond the
    /// error registers.
    const std::optional<JobFault>& lastFault() const { return lastFault_; }

private:
    void run();
    /// Waits out the cycles the program has run ahead of simulated time.
    void catchUp();

    void waitForDoorbell() override;
    uint32_t readRegister(uint32_t offset) override;
    void writeRegister(uint32_t offset, uint32_t value) override;
    void raiseInterrupt(uint32_t bits) override;
    bool readMemory(uint64_t address, std::span<std::byte> bytes) override;
    void spendCycles(uint64_t cycles, const isa::Command& command) override;
    void startJob() override;
    bool dispatch(const isa::Command& command, uint32_t index, uint64_t deadline) override;
    std::optional<JobFault> waitForCompletion(uint64_t deadline) override;
    JobFault abortJob(const JobFault& fault) override;
    void scrubOnchipMemory() override;
    void setContextWindow(uint64_t base, uint64_t size) override;
    uint64_t cycle() override { return clock_.now() + ahead_; }
    const ArchConfig& config() const override { return config_; }

    const ArchConfig& config_;
    const Clock& clock_;
    NpuRegisters& registers_;
    CommandProcessor& processor_;
    ContextWindow& window_;
    BankedMemory& sram_;
    BankedMemory& accumulator_;
    firmware::ControlProgram& program_;
    UnitTrace trace_;
    MemoryAccessor memory_;
    std::optional<JobFault> lastFault_;
    uint64_t ahead_ = 0;  ///< cycles of work done but not yet waited for
};

}  // namespace npusim::hw
