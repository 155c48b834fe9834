// The NPU: control core, command processor, DMA engines, SRAM, accumulator memory, tensor and
// vector units and the MMIO register file, wired with TLM-2.0 sockets. Outside it are the
// system bus (MMIO in, memory out) and the interrupt line.
#pragma once

#include <systemc>
#include <tlm>

#include "arch/arch_config.h"
#include "arch/trace_event.h"
#include "hw_model/command/command_processor.h"
#include "hw_model/common/blocking_target.h"
#include "hw_model/common/clock.h"
#include "hw_model/control/context_window.h"
#include "hw_model/control/control_core.h"
#include "hw_model/dma/dma_engine.h"
#include "hw_model/memory/banked_memory.h"
#include "hw_model/mmio/npu_registers.h"
#include "hw_model/tensor/tensor_unit.h"
#include "hw_model/vector/vector_unit.h"

namespace npusim::hw {

class Npu : public sc_core::sc_module {
public:
    /// `firmware` runs on the control core; `recorder` may be null (tracing off).
    /// `functional` false: timing only, no values computed or moved by the units.
    /// `tensorCore` and `vectorCore` replace the units' model cores (RTL cores), when given.
    Npu(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
        firmware::ControlProgram& firmware, trace::Recorder* recorder, bool functional,
        std::unique_ptr<TensorCore> tensorCore = nullptr, std::unique_ptr<VectorCore> vectorCore = nullptr);

    /// MMIO registers, addressed by offset from regs::kMmioBase.
    tlm_utils::simple_target_socket<NpuRegisters>& mmioSocket() { return registers_.tSocket; }
    /// Binds the NPU's bus masters (the DMA engines and the control core) to the system
    /// interconnect towards memory (physical addresses). Each is a master of its own on the
    /// bus: a funnel inside the NPU would add a hop to every burst and model nothing.
    void bindMasters(BlockingTarget::Socket& bus);
    sc_core::sc_out<bool>& irq() { return registers_.irq; }
    /// Host seconds the tensor and vector units spent computing values (QueueUnit::computeSeconds).
    double computeSeconds() const { return tensor_.computeSeconds() + vector_.computeSeconds(); }
    /// Counts the commands the NPU dispatches into `dispatched` (null: none).
    void countDispatchesInto(std::atomic<uint64_t>* dispatched) { processor_.countDispatchesInto(dispatched); }
    /// Injects `faults` (null: none) into the DMA engines, the tensor unit and the interrupt.
    void setFaultInjector(FaultInjector* faults);
    /// The fault that stopped the current or last job, if it failed, with its explanation.
    const std::optional<JobFault>& lastFault() const { return controlCore_.lastFault(); }

private:
    ContextWindow window_;
    NpuRegisters registers_;
    CommandProcessor processor_;
    BankedMemory sram_;
    BankedMemory accumulator_;
    DmaEngine loadDma_;
    DmaEngine storeDma_;
    TensorUnit tensor_;
    VectorUnit vector_;
    ControlCore controlCore_;
};

}  // namespace npusim::hw
