// Construction and binding of the NPU's units.
#include "hw_model/npu.h"

namespace npusim::hw {

Npu::Npu(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
         firmware::ControlProgram& firmware, trace::Recorder* recorder, bool functional,
         std::unique_ptr<TensorCore> tensorCore, std::unique_ptr<VectorCore> vectorCore)
    : sc_module(name),
      registers_("registers"),
      processor_("command_processor", config, clock),
      sram_("sram", config.sram, clock),
      accumulator_("accumulator", config.accumulator, clock),
      loadDma_("dma_load", config, clock, processor_, window_, isa::Queue::Load, recorder, functional),
      storeDma_("dma_store", config, clock, processor_, window_, isa::Queue::Store, recorder, functional),
      tensor_("tensor", config, clock, processor_, recorder, functional, std::move(tensorCore)),
      vector_("vector", config, clock, processor_, recorder, functional, std::move(vectorCore)),
      controlCore_("control_core", config, clock, registers_, processor_, window_, sram_, accumulator_,
                   firmware, recorder) {
    loadDma_.sramSocket.bind(sram_.tSocket);
    storeDma_.sramSocket.bind(sram_.tSocket);
    tensor_.sramSocket.bind(sram_.tSocket);
    vector_.sramSocket.bind(sram_.tSocket);
    loadDma_.accSocket.bind(accumulator_.tSocket);
    storeDma_.accSocket.bind(accumulator_.tSocket);
    tensor_.accSocket.bind(accumulator_.tSocket);
    vector_.accSocket.bind(accumulator_.tSocket);
}

void Npu::bindMasters(BlockingTarget::Socket& bus) {
    loadDma_.dramSocket.bind(bus);
    storeDma_.dramSocket.bind(bus);
    controlCore_.memSocket.bind(bus);
}

void Npu::setFaultInjector(FaultInjector* faults) {
    loadDma_.setFaultInjector(faults);
    storeDma_.setFaultInjector(faults);
    tensor_.setFaultInjector(faults);
    registers_.setFaultInjector(faults);
    if (faults) {
        faults->setOnchipTarget([this](bool accumulator, uint64_t address) {
            (accumulator ? accumulator_ : sram_).flipBit(address, 3);
        });
    }
}

}  // namespace npusim::hw
