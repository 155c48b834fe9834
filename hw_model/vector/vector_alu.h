// The vector unit's arithmetic on packed rows x cols blocks of 4-byte elements.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arch/dtype.h"
#include "arch/isa.h"

namespace npusim::hw {

struct VectorBlock {
    isa::VectorOp op = isa::VectorOp::Copy;
    DType dtype = DType::Fp32;  ///< Fp32 or Int32
    isa::Operand1Mode mode = isa::Operand1Mode::None;
    uint32_t rows = 0, cols = 0;
    uint32_t immediate = 0;          ///< raw bits, for Operand1Mode::Immediate
    const std::byte* src0 = nullptr;  ///< rows x cols
    const std::byte* src1 = nullptr;  ///< packed as the mode reads it (see operand1Elements)
    std::byte* dst = nullptr;         ///< rows x cols
};

/// Elements the second operand has in packed form for a mode (0 for None and Immediate).
uint64_t operand1Elements(isa::Operand1Mode mode, uint32_t rows, uint32_t cols);

/// dst[r][c] = op(src0[r][c], operand1(r, c)); int32 arithmetic wraps.
void computeVectorBlock(const VectorBlock& block);

}  // namespace npusim::hw
