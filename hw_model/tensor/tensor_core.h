// The tensor unit's compute core: what computes a tile's results and sets how long its phases
// take. The model core computes with GemmEngine and takes the phases from the tile timing of
// arch/tile_timing.h (which the cost model reads too); an RTL core (rtl/) runs a Verilated systolic array cycle by cycle. hw_model
// declares the interface and knows no RTL; the simulation top chooses the core.
#pragma once

#include <cstdint>
#include <memory>

#include "arch/arch_config.h"
#include "arch/tile_timing.h"
#include "hw_model/tensor/gemm_kernel.h"

namespace npusim::hw {

/// A tile's shape and type: all its phase lengths depend on.
struct TileShape {
    DType dtype = DType::Int8;
    uint32_t m = 0, n = 0, k = 0;
    bool accumulate = false;
    auto operator<=>(const TileShape&) const = default;
};

class TensorCore {
public:
    virtual ~TensorCore() = default;
    /// The phase lengths of the tile of `shape` that command (`opId`, `tileId`) issues;
    /// `model` is what the timing model gives.
    virtual TilePhases phases(const TileShape& shape, const TilePhases& model, uint32_t opId, uint32_t tileId) = 0;
    /// Computes tile.c (accumulating when tile.accumulate).
    virtual void compute(const GemmTile& tile) = 0;
};

/// The timing model's core: GemmEngine's arithmetic, the dataflow's phases.
std::unique_ptr<TensorCore> makeModelTensorCore();

}  // namespace npusim::hw
