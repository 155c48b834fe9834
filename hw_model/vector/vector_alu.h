// The vector unit's arithmetic on packed rows x cols blocks: elementwise ops with broadcast
// operands, row reductions, casts and (de)quantisation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arch/dtype.h"
#include "arch/isa.h"

namespace npusim::hw {

struct VectorBlock {
    isa::VectorOp op = isa::VectorOp::Copy;
    DType dtype = DType::Fp32;     ///< of src0 and src1
    DType outDType = DType::Fp32;  ///< of dst
    isa::Operand1Mode mode = isa::Operand1Mode::None;
    uint32_t rows = 0, cols = 0;
    uint32_t immediate = 0, immediate2 = 0;  ///< raw bits
    const std::byte* src0 = nullptr;  ///< rows x cols
    const std::byte* src1 = nullptr;  ///< packed as the mode reads it (see operand1Elements)
    std::byte* dst = nullptr;         ///< rows x cols, or rows x 1 for reductions
};

/// Elements the second operand has in packed form for a mode (0 for None and Immediate).
uint64_t operand1Elements(isa::Operand1Mode mode, uint32_t rows, uint32_t cols);

/// Computes the block. fp32 math is single precision (std::exp, std::erf, ...); int32 add,
/// sub, mul and sums wrap; rounding to integers is to nearest, ties to even, saturating.
void computeVectorBlock(const VectorBlock& block);

}  // namespace npusim::hw
