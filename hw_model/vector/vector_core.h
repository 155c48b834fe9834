// The vector unit's compute core: what computes a block's results and sets how long its
// lanes take. The model core computes with computeVectorBlock and takes the timing model's
// cycles; an RTL core (rtl/) runs Verilated lanes cycle by cycle. hw_model declares the
// interface and knows no RTL.
#pragma once

#include <cstdint>
#include <memory>

#include "hw_model/vector/vector_alu.h"

namespace npusim::hw {

class VectorCore {
public:
    virtual ~VectorCore() = default;
    /// Cycles from the first group of `block` entering the lanes to its last result leaving,
    /// for command (`opId`, `tileId`); `model` is what the timing model gives.
    virtual uint64_t computeCycles(const VectorBlock& block, uint64_t model, uint32_t opId, uint32_t tileId) = 0;
    /// Computes block.dst.
    virtual void compute(const VectorBlock& block) = 0;
};

/// The timing model's core: computeVectorBlock, the model's cycles.
std::unique_ptr<VectorCore> makeModelVectorCore();

}  // namespace npusim::hw
