// The tensor unit's tile timing: how long the phases of one tile take on an idle array with
// its operands at hand, per dataflow. One formula, read by the hardware model's tensor unit and
// by the compiler's cost model.
#pragma once

#include <cstdint>

#include "arch/arch_config.h"

namespace npusim {

/// Phase lengths of one tile, in cycles.
struct TilePhases {
    /// Before streaming: the stationary operand enters the array (WS: B, one row per cycle;
    /// OS: the partial sums of C when accumulating). With a double-buffered array it overlaps
    /// the previous tile's stream.
    uint64_t preload = 0;
    /// Operands flow through the array.
    uint64_t stream = 0;
    /// After the stream until the last result has left the array: skew fill and drain.
    uint64_t latency = 0;
    /// From the stream's start until the first results reach the accumulator memory.
    uint64_t firstResult = 0;
    bool operator==(const TilePhases&) const = default;
};

/// The phases of an m x k x n tile (m rows of A, k of B, at most the array's rows along the
/// dimension its dataflow cuts) in `tensor`'s dataflow; `accumulate`: onto earlier partial sums.
///   weight stationary: B (k x n) stays in the PEs, A's m rows enter skewed: preload k, stream
///     m * cycles_per_row, fill rows-1 and drain cols-1;
///   output stationary: C (m x n) stays in the PEs, A and B stream one k step per
///     cycles_per_row; the m result rows shift out after fill and skew.
TilePhases tilePhases(const TensorUnitConfig& tensor, DType dtype, uint64_t m, uint64_t k, bool accumulate);

/// The fewest cycles the array needs for `batch` products of an m x k by a k x n matrix,
/// whatever the tiling, in the shorter of the product's two orientations (C = A B, or
/// C^T = B^T A^T with m and n exchanged), each product on its own (docs/REPORTS.md derives it):
///   weight stationary: ceil(k/rows) x ceil(n/cols) stationary tiles stream the m rows each,
///     and a preload of k rows a column of tiles; double-buffered, a tile's preload hides
///     under the previous tile's stream: per column max(k, ceil(k/rows) * m * cycles_per_row);
///   output stationary: ceil(m/rows) x ceil(n/cols) result tiles stream the k steps each;
/// then the last tile's fill and drain, and single-buffered every tile's.
uint64_t gemmArrayCycles(const TensorUnitConfig& tensor, DType dtype, uint64_t batch, uint64_t m, uint64_t k,
                         uint64_t n);

/// One product's cycles in one orientation (m rows streamed or held, n result columns), without
/// the fill and drain a double-buffered array pays once: the term gemmArrayCycles minimises.
uint64_t orientedArrayCycles(const TensorUnitConfig& tensor, DType dtype, uint64_t m, uint64_t k, uint64_t n);

}  // namespace npusim
