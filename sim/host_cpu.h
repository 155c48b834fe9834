// The host CPU model: runs a host program (runtime and driver) in an SC_THREAD and implements
// the driver's DeviceBus with MMIO and memory copies over TLM-2.0 and the NPU's IRQ line.
#pragma once

#include <exception>
#include <functional>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "arch/arch_config.h"
#include "driver/device_bus.h"
#include "hw_model/common/clock.h"

namespace npusim::sim {

class HostCpu : public sc_core::sc_module, public driver::DeviceBus {
public:
    using Program = std::function<void(driver::DeviceBus&)>;

    /// System physical addresses (MMIO and DRAM).
    tlm_utils::simple_initiator_socket<HostCpu> busSocket;
    sc_core::sc_in<bool> irq;

    /// Runs `program` once, then stops the simulation.
    HostCpu(sc_core::sc_module_name name, const ArchConfig& config, const hw::Clock& clock, Program program);

    /// The exception the program ended with, if any.
    std::exception_ptr failure() const { return failure_; }

    uint32_t readRegister(uint32_t offset) override;
    void writeRegister(uint32_t offset, uint32_t value) override;
    void writeMemory(uint64_t address, std::span<const std::byte> bytes) override;
    void writeMemoryTimingOnly(uint64_t address, uint64_t bytes) override;
    void readMemory(uint64_t address, std::span<std::byte> bytes) override;
    bool waitForInterrupt(uint64_t timeoutCycles) override;
    uint64_t nowCycles() override { return clock_.now(); }
    void compute(uint64_t cycles) override;

private:
    void run();
    /// Cycles a copy of `bytes` takes at the host's copy bandwidth.
    uint64_t copyCycles(uint64_t bytes) const;
    void transfer(tlm::tlm_command command, uint64_t address, std::byte* data, uint64_t bytes,
                  uint64_t minimumCycles);

    const ArchConfig& config_;
    const hw::Clock& clock_;
    Program program_;
    std::exception_ptr failure_;
};

}  // namespace npusim::sim
