// Weight-stationary and output-stationary tile timing.
#include "arch/tile_timing.h"

#include <algorithm>

namespace npusim {

TilePhases tilePhases(const TensorUnitConfig& t, DType dtype, uint64_t m, uint64_t k, bool accumulate) {
    const uint64_t cyclesPerRow = t.cyclesPerRow.at(dtype);
    const uint64_t skew = (t.rows - 1) + (t.cols - 1);
    if (t.dataflow == Dataflow::OutputStationary) {
        return {accumulate ? m : 0, k * cyclesPerRow, skew + m, k * cyclesPerRow + skew};
    }
    return {k, m * cyclesPerRow, skew, t.rows};
}

uint64_t orientedArrayCycles(const TensorUnitConfig& t, DType dtype, uint64_t m, uint64_t k, uint64_t n) {
    if (m == 0 || k == 0 || n == 0 || !t.supports(dtype)) return 0;
    const uint64_t cyclesPerRow = t.cyclesPerRow.at(dtype);
    const auto tilesOf = [](uint64_t extent, uint32_t size) { return (extent + size - 1) / size; };
    const uint64_t skew = (t.rows - 1) + (t.cols - 1);
    const uint64_t columns = tilesOf(n, t.cols);
    if (t.dataflow == Dataflow::OutputStationary) {
        const uint64_t tiles = tilesOf(m, t.rows) * columns;
        const uint64_t stream = k * cyclesPerRow;
        // Single-buffered, each tile's results leave before the next starts: skew plus its
        // rows, and a column of tiles holds every one of the m rows once.
        return t.doubleBuffered ? tiles * stream : tiles * (stream + skew) + columns * m;
    }
    const uint64_t kTiles = tilesOf(k, t.rows);
    const uint64_t stream = m * cyclesPerRow;
    return t.doubleBuffered ? columns * std::max(k, kTiles * stream) : columns * (k + kTiles * (stream + skew));
}

uint64_t gemmArrayCycles(const TensorUnitConfig& t, DType dtype, uint64_t batch, uint64_t m, uint64_t k, uint64_t n) {
    if (batch == 0 || m == 0 || k == 0 || n == 0 || !t.supports(dtype)) return 0;
    const uint64_t product = std::min(orientedArrayCycles(t, dtype, m, k, n), orientedArrayCycles(t, dtype, n, k, m));
    const uint64_t drain = t.doubleBuffered ? (t.rows - 1) + (t.cols - 1) : 0;
    return batch * product + drain;
}

}  // namespace npusim
