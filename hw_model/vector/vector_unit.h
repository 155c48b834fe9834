// The vector unit: `lanes` elementwise ALUs behind a pipeline of `pipeline_depth` stages,
// reading and writing SRAM or the accumulator memory, fp32 and int32.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw_model/common/queue_unit.h"

namespace npusim::hw {

class VectorUnit : public QueueUnit {
public:
    tlm_utils::simple_initiator_socket<VectorUnit> sramSocket;
    tlm_utils::simple_initiator_socket<VectorUnit> accSocket;

    VectorUnit(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
               CommandProcessor& processor, trace::Recorder* recorder, bool functional);

    void execute(const isa::Command& command) override;

private:
    std::vector<std::byte> src0_, src1_, dst_;
};

}  // namespace npusim::hw
