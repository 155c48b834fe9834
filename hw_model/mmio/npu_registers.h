// The NPU's MMIO register file (arch/register_map.h) and its interrupt line. The host reaches
// it over TLM; the control core reads and writes it directly from inside the NPU.
#pragma once

#include <array>
#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "arch/register_map.h"

#include "hw_model/fault/fault_injector.h"

namespace npusim::hw {

class NpuRegisters : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<NpuRegisters> tSocket;
    /// High while (IRQ_STATUS & IRQ_MASK) != 0.
    sc_core::sc_out<bool> irq;

    explicit NpuRegisters(sc_core::sc_module_name name);

    // Device side, used by the control core.
    uint32_t read(uint32_t offset) const { return words_.at(offset / 4); }
    void write(uint32_t offset, uint32_t value) { words_.at(offset / 4) = value; }
    /// Sets interrupt status bits and updates the line (unless an injected fault loses it).
    void raiseInterrupt(uint32_t bits);
    /// Faults to inject (null: none); the simulation top owns the injector.
    void setFaultInjector(FaultInjector* faults) { faults_ = faults; }
    /// Notified when the host rings the doorbell.
    const sc_core::sc_event& doorbell() const { return doorbell_; }

private:
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void hostWrite(uint32_t offset, uint32_t value);
    void driveIrq();

    std::array<uint32_t, regs::kMmioSize / 4> words_{};
    sc_core::sc_event doorbell_;
    sc_core::sc_event irqChanged_;
    FaultInjector* faults_ = nullptr;
};

}  // namespace npusim::hw
