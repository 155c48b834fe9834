// The unit test bench's construction, binding and driver thread.
#include "unit_harness.h"

#include <stdexcept>

namespace npusim::test {

UnitHarness::UnitHarness(sc_core::sc_module_name name, const ArchConfig& config)
    : sc_module(name),
      config_(config),
      clock_(config_.clockPeriodPs),
      window_{regs::kDramBase, config_.dram.sizeBytes},
      dram_("dram", config_.dram, clock_),
      memoryPort_("memory_port", {hw::AddressRange{regs::kDramBase, config_.dram.sizeBytes}}),
      sram_("sram", config_.sram, clock_),
      accumulator_("accumulator", config_.accumulator, clock_),
      processor_("command_processor", config_, clock_),
      loadDma_("dma_load", config_, clock_, processor_, window_, isa::Queue::Load, &trace_, true),
      storeDma_("dma_store", config_, clock_, processor_, window_, isa::Queue::Store, &trace_, true),
      tensor_("tensor", config_, clock_, processor_, &trace_, true),
      vector_("vector", config_, clock_, processor_, &trace_, true),
      debugDram_("debug_dram"),
      debugSram_("debug_sram"),
      debugAccumulator_("debug_accumulator") {
    memoryPort_.iSocket.bind(dram_.tSocket);
    loadDma_.dramSocket.bind(memoryPort_.tSocket);
    storeDma_.dramSocket.bind(memoryPort_.tSocket);
    for (auto* socket : {&loadDma_.sramSocket, &storeDma_.sramSocket}) socket->bind(sram_.tSocket);
    for (auto* socket : {&loadDma_.accSocket, &storeDma_.accSocket}) socket->bind(accumulator_.tSocket);
    tensor_.sramSocket.bind(sram_.tSocket);
    tensor_.accSocket.bind(accumulator_.tSocket);
    vector_.sramSocket.bind(sram_.tSocket);
    vector_.accSocket.bind(accumulator_.tSocket);
    debugDram_.bind(dram_.tSocket);
    debugSram_.bind(sram_.tSocket);
    debugAccumulator_.bind(accumulator_.tSocket);
    SC_HAS_PROCESS(UnitHarness);
    SC_THREAD(driver);
}

void UnitHarness::driver() {
    body_();
    sc_core::sc_stop();
}

void UnitHarness::run(const std::function<void()>& body) {
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    body_ = body;
    sc_core::sc_start();
}

uint64_t UnitHarness::execute(const std::vector<isa::Command>& commands) {
    const uint64_t start = clock_.now();
    processor_.beginJob();
    for (uint32_t index = 0; index < commands.size(); ++index) {
        if (!processor_.waitForSlot(commands[index])) break;
        processor_.push(commands[index], index, clock_.now());
    }
    sc_core::wait(sc_core::SC_ZERO_TIME);  // let the units take their first commands
    fault_ = processor_.finishJob();
    return clock_.now() - start;
}

void UnitHarness::write(Memory memory, uint64_t address, std::span<const std::byte> bytes) {
    tlm::tlm_generic_payload payload;
    payload.set_command(tlm::TLM_WRITE_COMMAND);
    payload.set_address(address);
    payload.set_data_ptr(reinterpret_cast<unsigned char*>(const_cast<std::byte*>(bytes.data())));
    payload.set_data_length(static_cast<unsigned>(bytes.size()));
    auto& socket = memory == Memory::Dram ? debugDram_ : memory == Memory::Sram ? debugSram_ : debugAccumulator_;
    if (socket->transport_dbg(payload) != bytes.size()) throw std::out_of_range("debug write failed");
}

std::vector<std::byte> UnitHarness::read(Memory memory, uint64_t address, uint64_t bytes) {
    std::vector<std::byte> data(bytes);
    tlm::tlm_generic_payload payload;
    payload.set_command(tlm::TLM_READ_COMMAND);
    payload.set_address(address);
    payload.set_data_ptr(reinterpret_cast<unsigned char*>(data.data()));
    payload.set_data_length(static_cast<unsigned>(bytes));
    auto& socket = memory == Memory::Dram ? debugDram_ : memory == Memory::Sram ? debugSram_ : debugAccumulator_;
    if (socket->transport_dbg(payload) != bytes) throw std::out_of_range("debug read failed");
    return data;
}

}  // namespace npusim::test
