// What the driver needs from the machine it runs on: MMIO, physical memory access and
// interrupts. The co-simulation's host CPU model implements it over TLM-2.0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace npusim::driver {

class DeviceBus {
public:
    virtual ~DeviceBus() = default;

    /// 32-bit MMIO access at an offset from the NPU's register base.
    virtual uint32_t readRegister(uint32_t offset) = 0;
    virtual void writeRegister(uint32_t offset, uint32_t value) = 0;
    /// Copies between host memory and physical device memory.
    virtual void writeMemory(uint64_t address, std::span<const std::byte> bytes) = 0;
    virtual void readMemory(uint64_t address, std::span<std::byte> bytes) = 0;
    /// A copy of `bytes` bytes to device memory that takes writeMemory's time and stores
    /// nothing: for values no one will read (a timing-only run's weights).
    virtual void writeMemoryTimingOnly(uint64_t address, uint64_t bytes) = 0;
    /// Blocks until the NPU's interrupt line is high or `timeoutCycles` pass; false on timeout.
    virtual bool waitForInterrupt(uint64_t timeoutCycles) = 0;
    /// Current time in NPU cycles.
    virtual uint64_t nowCycles() = 0;
    /// The host CPU computes on its own for `cycles` (NPU cycles): time passes, nothing moves.
    virtual void compute(uint64_t cycles) = 0;
};

}  // namespace npusim::driver
