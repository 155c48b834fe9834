// Host-visible register semantics: write-only doorbell, write-1-to-clear IRQ status, read-only
// status words.
#include "hw_model/mmio/npu_registers.h"

#include <cstring>

namespace npusim::hw {

NpuRegisters::NpuRegisters(sc_core::sc_module_name name) : sc_module(name), tSocket("tSocket"), irq("irq") {
    tSocket.register_b_transport(this, &NpuRegisters::b_transport);
    words_[regs::kDeviceId / 4] = regs::kDeviceIdValue;
    SC_HAS_PROCESS(NpuRegisters);
    SC_METHOD(driveIrq);
    sensitive << irqChanged_;
}

void NpuRegisters::driveIrq() {
    irq.write((words_[regs::kIrqStatus / 4] & words_[regs::kIrqMask / 4]) != 0);
}

void NpuRegisters::raiseInterrupt(uint32_t bits) {
    if (faults_ && faults_->trigger(FaultKind::LostIrq)) return;  // the edge never reaches the line
    words_[regs::kIrqStatus / 4] |= bits;
    irqChanged_.notify(sc_core::SC_ZERO_TIME);
}

void NpuRegisters::hostWrite(uint32_t offset, uint32_t value) {
    switch (offset) {
        case regs::kDoorbell:
            if (value & 1u) doorbell_.notify(sc_core::SC_ZERO_TIME);
            return;
        case regs::kIrqStatus:
            words_[offset / 4] &= ~value;
            irqChanged_.notify(sc_core::SC_ZERO_TIME);
            return;
        case regs::kIrqMask:
            words_[offset / 4] = value;
            irqChanged_.notify(sc_core::SC_ZERO_TIME);
            return;
        case regs::kJobAddrLo:
        case regs::kJobAddrHi:
        case regs::kJobCommandCount:
        case regs::kContextId:
        case regs::kContextBaseLo:
        case regs::kContextBaseHi:
        case regs::kContextSizeLo:
        case regs::kContextSizeHi:
        case regs::kWatchdogLo:
        case regs::kWatchdogHi:
            words_[offset / 4] = value;
            return;
        default:
            return;  // read-only or unassigned: writes are ignored, as on the hardware
    }
}

void NpuRegisters::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
    const uint64_t offset = payload.get_address();
    if (payload.get_data_length() != 4 || offset % 4 != 0 || offset >= regs::kMmioSize) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    uint32_t value = 0;
    if (payload.is_read()) {
        value = words_[offset / 4];
        std::memcpy(payload.get_data_ptr(), &value, 4);
    } else {
        std::memcpy(&value, payload.get_data_ptr(), 4);
        hostWrite(static_cast<uint32_t>(offset), value);
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace npusim::hw
