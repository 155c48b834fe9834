// Constant GEMM operands stored in column bands (GemmOperand::bandColumns): which constants a
// program stores so, and their bytes in that layout for the DRAM image.
#pragma once

#include <cstddef>
#include <map>
#include <span>

#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// A constant stored in column bands: matrices of rows x cols, bands of `bandColumns`.
struct ConstantBands {
    int64_t rows = 0, cols = 0, bandColumns = 0;
};

/// The banded constants of a program, by value.
std::map<ValueId, ConstantBands> constantBands(const TileProgram& program);

/// Writes a constant's bytes (row-major matrices one after another) to `out`, of the same
/// size, in its banded layout.
void writeBanded(std::span<const std::byte> rowMajor, const ConstantBands& bands, size_t elementBytes, std::span<std::byte> out);

}  // namespace npusim::compiler
