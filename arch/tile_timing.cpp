// Weight-stationary and output-stationary tile timing.
#include "arch/tile_timing.h"

namespace npusim {

TilePhases tilePhases(const TensorUnitConfig& t, DType dtype, uint64_t m, uint64_t k, bool accumulate) {
    const uint64_t cyclesPerRow = t.cyclesPerRow.at(dtype);
    const uint64_t skew = (t.rows - 1) + (t.cols - 1);
    if (t.dataflow == Dataflow::OutputStationary) {
        return {accumulate ? m : 0, k * cyclesPerRow, skew + m, k * cyclesPerRow + skew};
    }
    return {k, m * cyclesPerRow, skew, t.rows};
}

}  // namespace npusim
