// A DMA engine serving one queue: 2D strided copies between DRAM (inside the job's context
// window) and on-chip memory, split into bursts with a bounded number in flight, optionally
// transposing the block on the way.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw_model/common/queue_unit.h"
#include "hw_model/control/context_window.h"

namespace npusim::hw {

class DmaEngine : public QueueUnit {
public:
    /// Physical system addresses (DRAM).
    tlm_utils::simple_initiator_socket<DmaEngine> dramSocket;
    tlm_utils::simple_initiator_socket<DmaEngine> sramSocket;
    tlm_utils::simple_initiator_socket<DmaEngine> accSocket;

    DmaEngine(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
              CommandProcessor& processor, const ContextWindow& window, isa::Queue queue,
              trace::Recorder* recorder);

    void execute(const isa::Command& command) override;

private:
    struct Burst {
        uint64_t dramAddress;        ///< physical
        uint64_t bufferOffset;       ///< offset of the burst's bytes inside the staging buffer
        uint64_t bytes;
        uint64_t onchipAddress;      ///< first on-chip byte
        uint64_t onchipRows;         ///< > 1 when a transposing DMA scatters elements
        uint64_t onchipRowBytes;
        uint64_t onchipStride;
    };

    std::vector<Burst> planBursts(const isa::Command& command) const;

    const ContextWindow& window_;
    std::vector<std::byte> staging_;
};

}  // namespace npusim::hw
