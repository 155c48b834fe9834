// A test bench for the NPU's execution units: DRAM, SRAM, accumulator memory, command
// processor, DMA engines, tensor and vector units, without the control core. A test body runs
// in a driver thread, feeds commands, and reads and writes memories by debug transport.
#pragma once

#include <functional>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "arch/register_map.h"
#include "arch/trace_event.h"
#include "hw_model/bus/router.h"
#include "hw_model/command/command_processor.h"
#include "hw_model/dma/dma_engine.h"
#include "hw_model/dram/dram.h"
#include "hw_model/memory/banked_memory.h"
#include "hw_model/tensor/tensor_unit.h"
#include "hw_model/vector/vector_unit.h"

namespace npusim::test {

class UnitHarness : public sc_core::sc_module {
public:
    enum class Memory { Dram, Sram, Accumulator };

    UnitHarness(sc_core::sc_module_name name, const ArchConfig& config);

    /// Runs `body` in the driver thread until it returns.
    void run(const std::function<void()>& body);

    /// From the body: runs the commands as one job until every unit is idle or the job
    /// faults; returns the cycles that took.
    uint64_t execute(const std::vector<isa::Command>& commands);
    /// The fault that stopped the last execute(), if any.
    const std::optional<JobFault>& fault() const { return fault_; }
    /// Untimed access to a memory, from the body or after run() (sockets are bound at the end
    /// of elaboration). DRAM offsets are relative to the context window, which starts at the
    /// beginning of DRAM.
    void write(Memory memory, uint64_t address, std::span<const std::byte> bytes);
    std::vector<std::byte> read(Memory memory, uint64_t address, uint64_t bytes);

    const trace::Recorder& trace() const { return trace_; }
    uint64_t now() const { return clock_.now(); }

private:
    void driver();

    const ArchConfig config_;
    hw::Clock clock_;
    trace::Recorder trace_;
    hw::ContextWindow window_;
    hw::Dram dram_;
    hw::Router memoryPort_;
    hw::BankedMemory sram_, accumulator_;
    hw::CommandProcessor processor_;
    hw::DmaEngine loadDma_, storeDma_;
    hw::TensorUnit tensor_;
    hw::VectorUnit vector_;
    tlm_utils::simple_initiator_socket<UnitHarness> debugDram_, debugSram_, debugAccumulator_;
    std::function<void()> body_;
    std::optional<JobFault> fault_;
};

}  // namespace npusim::test
