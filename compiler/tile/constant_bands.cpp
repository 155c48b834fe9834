// Constant GEMM operands in column bands: the layout's bytes.
#include "compiler/tile/constant_bands.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <variant>

namespace npusim::compiler {

std::map<ValueId, ConstantBands> constantBands(const TileProgram& program) {
    std::map<ValueId, ConstantBands> bands;
    for (const TileOp& op : program.ops) {
        const auto* gemm = std::get_if<GemmTiles>(&op);
        if (!gemm) continue;
        const GemmProblem& p = gemm->problem;
        if (p.a.bandColumns != 0) bands[p.a.value] = {p.m, p.k, p.a.bandColumns};
        if (p.b.bandColumns != 0) bands[p.b.value] = {p.k, p.n, p.b.bandColumns};
    }
    return bands;
}

void writeBanded(std::span<const std::byte> rowMajor, const ConstantBands& bands, size_t elementBytes, std::span<std::byte> out) {
    const auto matrixBytes = static_cast<size_t>(bands.rows * bands.cols) * elementBytes;
    if (matrixBytes == 0 || rowMajor.size() % matrixBytes != 0 || out.size() != rowMajor.size()) {
        throw std::logic_error("a packed constant's bytes are not whole matrices");
    }
    GemmOperand layout;
    layout.bandColumns = bands.bandColumns;
    for (size_t base = 0; base < rowMajor.size(); base += matrixBytes) {
        for (int64_t col0 = 0; col0 < bands.cols; col0 += bands.bandColumns) {
            const auto width = static_cast<size_t>(std::min(bands.bandColumns, bands.cols - col0));
            for (int64_t row = 0; row < bands.rows; ++row) {
                const auto from = static_cast<size_t>(row * bands.cols + col0) * elementBytes;
                const auto to = static_cast<size_t>(storedOffset(layout, bands.rows, bands.cols, row, col0)) * elementBytes;
                std::memcpy(out.data() + base + to, rowMajor.data() + base + from, width * elementBytes);
            }
        }
    }
}

}  // namespace npusim::compiler
