// Weight-stationary and output-stationary tile timing.
#include "hw_model/tensor/dataflow.h"

namespace npusim::hw {
namespace {

/// B (k x n) stays in the PEs; the m rows of A enter skewed from the left and partial sums flow
/// down: weights k, stream m*cpr, fill rows-1 and drain cols-1.
class WeightStationary : public SystolicDataflow {
public:
    TilePhases phases(const TensorUnitConfig& t, DType dtype, uint64_t m, uint64_t, uint64_t k,
                      bool) const override {
        return {k, m * t.cyclesPerRow.at(dtype), (t.rows - 1) + (t.cols - 1), t.rows};
    }
    bool preloadsWeights() const override { return true; }
};

/// C (m x n) stays in the PEs; A enters from the left and B from the top, one k step per
/// cycles_per_row; after fill and skew the results shift out one row per cycle.
class OutputStationary : public SystolicDataflow {
public:
    TilePhases phases(const TensorUnitConfig& t, DType dtype, uint64_t m, uint64_t, uint64_t k,
                      bool accumulate) const override {
        const uint64_t skew = (t.rows - 1) + (t.cols - 1);
        return {accumulate ? m : 0, k * t.cyclesPerRow.at(dtype), skew + m, k * t.cyclesPerRow.at(dtype) + skew};
    }
    bool preloadsWeights() const override { return false; }
};

}  // namespace

std::unique_ptr<SystolicDataflow> makeDataflow(Dataflow dataflow) {
    if (dataflow == Dataflow::OutputStationary) return std::make_unique<OutputStationary>();
    return std::make_unique<WeightStationary>();
}

}  // namespace npusim::hw
