// The vector unit: `lanes` elementwise ALUs behind a pipeline of `pipeline_depth` stages,
// reading and writing SRAM or the accumulator memory, fp32 and int32.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw_model/common/queue_unit.h"
#include "hw_model/vector/vector_core.h"

namespace npusim::hw {

class VectorUnit : public QueueUnit {
public:
    tlm_utils::simple_initiator_socket<VectorUnit> sramSocket;
    tlm_utils::simple_initiator_socket<VectorUnit> accSocket;

    /// `core` computes the blocks and sets their lanes' cycles (makeModelVectorCore() when null).
    VectorUnit(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
               CommandProcessor& processor, trace::Recorder* recorder, bool functional,
               std::unique_ptr<VectorCore> core = nullptr);

    void execute(const isa::Command& command) override;

private:
    std::unique_ptr<VectorCore> core_;
    std::vector<std::byte> src0_, src1_, dst_;
};

}  // namespace npusim::hw
