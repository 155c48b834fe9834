// Host-side bus accesses with the configured MMIO latency, copy bandwidth and IRQ latency.
#include "sim/host_cpu.h"

#include <cmath>
#include <sstream>

#include "arch/error.h"
#include "arch/register_map.h"

namespace npusim::sim {

HostCpu::HostCpu(sc_core::sc_module_name name, const ArchConfig& config, const hw::Clock& clock,
                 Program program)
    : sc_module(name), busSocket("busSocket"), irq("irq"), config_(config), clock_(clock),
      program_(std::move(program)) {
    SC_HAS_PROCESS(HostCpu);
    SC_THREAD(run);
}

void HostCpu::run() {
    try {
        program_(*this);
    } catch (...) {
        failure_ = std::current_exception();
    }
    sc_core::sc_stop();
}

void HostCpu::transfer(tlm::tlm_command command, uint64_t address, std::byte* data, uint64_t bytes,
                       uint64_t minimumCycles) {
    tlm::tlm_generic_payload payload;
    payload.set_command(command);
    payload.set_address(address);
    payload.set_data_ptr(reinterpret_cast<unsigned char*>(data));
    payload.set_data_length(static_cast<unsigned>(bytes));
    payload.set_streaming_width(static_cast<unsigned>(bytes));
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    busSocket->b_transport(payload, delay);
    if (payload.get_response_status() != tlm::TLM_OK_RESPONSE) {
        std::ostringstream message;
        message << "host: bus error at 0x" << std::hex << address << ": " << payload.get_response_string();
        throw RunError(message.str());
    }
    sc_core::wait(std::max(delay, clock_.cycles(minimumCycles)));
}

uint32_t HostCpu::readRegister(uint32_t offset) {
    uint32_t value = 0;
    transfer(tlm::TLM_READ_COMMAND, regs::kMmioBase + offset, reinterpret_cast<std::byte*>(&value),
             4, config_.host.mmioLatencyCycles);
    return value;
}

void HostCpu::writeRegister(uint32_t offset, uint32_t value) {
    // The write lands once it has crossed the bus.
    sc_core::wait(clock_.cycles(config_.host.mmioLatencyCycles));
    transfer(tlm::TLM_WRITE_COMMAND, regs::kMmioBase + offset, reinterpret_cast<std::byte*>(&value),
             4, 0);
}

uint64_t HostCpu::copyCycles(uint64_t bytes) const {
    return static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / config_.host.copyBytesPerCycle));
}

void HostCpu::writeMemory(uint64_t address, std::span<const std::byte> bytes) {
    if (bytes.empty()) return;
    transfer(tlm::TLM_WRITE_COMMAND, address, const_cast<std::byte*>(bytes.data()), bytes.size(), copyCycles(bytes.size()));
}

void HostCpu::writeMemoryTimingOnly(uint64_t address, uint64_t bytes) {
    if (bytes == 0) return;
    transfer(tlm::TLM_WRITE_COMMAND, address, nullptr, bytes, copyCycles(bytes));  // memories move no data without a pointer
}

void HostCpu::readMemory(uint64_t address, std::span<std::byte> bytes) {
    if (bytes.empty()) return;
    transfer(tlm::TLM_READ_COMMAND, address, bytes.data(), bytes.size(), copyCycles(bytes.size()));
}

void HostCpu::compute(uint64_t cycles) { sc_core::wait(clock_.cycles(cycles)); }

bool HostCpu::waitForInterrupt(uint64_t timeoutCycles) {
    if (!irq.read()) {
        sc_core::wait(clock_.cycles(timeoutCycles), irq.posedge_event());
        if (!irq.read()) return false;
    }
    sc_core::wait(clock_.cycles(config_.host.irqLatencyCycles));
    return true;
}

}  // namespace npusim::sim
