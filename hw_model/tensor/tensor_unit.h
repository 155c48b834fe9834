// The tensor unit: a weight-stationary systolic array of rows x cols PEs. A GEMM tile loads
// its k x n weights into the array, streams m rows of A through it, and drains the results
// into the accumulator memory. On an idle array with operands at hand a tile takes
//   weight load k + stream m*cycles_per_row + fill (rows-1) + drain (cols-1) cycles.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw_model/common/queue_unit.h"

namespace npusim::hw {

class TensorUnit : public QueueUnit {
public:
    tlm_utils::simple_initiator_socket<TensorUnit> sramSocket;
    tlm_utils::simple_initiator_socket<TensorUnit> accSocket;

    TensorUnit(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
               CommandProcessor& processor, trace::Recorder* recorder);

    void execute(const isa::Command& command) override;

private:
    std::vector<std::byte> a_, b_, c_;
};

}  // namespace npusim::hw
