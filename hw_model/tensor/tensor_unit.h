// The tensor unit: a systolic array of rows x cols PEs under a dataflow policy (weight or
// output stationary). Tiles pipeline: with a double-buffered array the next tile's stationary
// operand loads while the current tile streams, and a tile's fill and drain overlap the next
// tile's stream, so back-to-back tiles keep the array streaming. Results reach the
// accumulator memory as they drain.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw_model/common/queue_unit.h"
#include "hw_model/tensor/tensor_core.h"

namespace npusim::hw {

class TensorUnit : public QueueUnit {
public:
    tlm_utils::simple_initiator_socket<TensorUnit> sramSocket;
    tlm_utils::simple_initiator_socket<TensorUnit> accSocket;

    /// `core` computes the tiles and sets their phase lengths (makeModelTensorCore() when null).
    TensorUnit(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
               CommandProcessor& processor, trace::Recorder* recorder, bool functional,
               std::unique_ptr<TensorCore> core = nullptr);

    void execute(const isa::Command& command) override;
    void drain(const sc_core::sc_event& arrival) override;
    uint64_t busyUntil() const override { return recordedUntil_; }
    uint64_t completesAt() const override { return drainEnd_; }
    void settle(uint64_t cycle) override;

private:
    /// The preload phase reads the held operand (weight stationary: B, or A when transposed),
    /// not C (output stationary).
    bool preloadsWeights() const { return config_.tensor.dataflow == Dataflow::WeightStationary; }

    /// Computes `tile` on the core: as `onArray`, its transpose, when `transposed`.
    void compute(const GemmTile& tile, GemmTile onArray, bool transposed);

    std::unique_ptr<TensorCore> core_;
    std::vector<std::byte> a_, b_, c_;
    std::vector<std::byte> aFed_, bFed_, cFed_;  ///< a transposed tile's operands and results as the array sees them
    uint64_t streamEnd_ = 0;      ///< the array streams the last issued tile until this cycle
    uint64_t drainEnd_ = 0;       ///< ... and its results are in the accumulator memory
    uint64_t recordedUntil_ = 0;  ///< the unit's trace covers its time up to this cycle
    isa::Command last_;           ///< the last tile issued, which a drain belongs to
};

}  // namespace npusim::hw
