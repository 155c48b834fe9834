// Index spaces of vector problems: an op's output dims with the strides through which each
// operand is read or written, simplified (merged, split) without changing what they address.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "arch/tensor.h"

namespace npusim::compiler {

struct IndexSpace {
    Shape dims;
    /// Per operand, its element stride along each dim (0 broadcasts).
    std::vector<std::vector<int64_t>> strides;

    /// Adds an operand with these strides; returns its index.
    size_t add(std::vector<int64_t> operandStrides);
};

/// The index space of a dense row-major tensor of `shape`, as operand 0.
IndexSpace denseSpace(const Shape& shape);
/// Strides through which a tensor of `shape` is read when broadcast numpy-style to `target`.
std::vector<int64_t> broadcastTo(const Shape& shape, const Shape& target);
/// Moves dims: the new dim i is the old dim order[i].
void permuteDims(IndexSpace& space, std::span<const size_t> order);
/// Drops extent-1 dims in [begin, end) and merges neighbours in it that every operand steps
/// through alike. Returns the new end of the range.
size_t simplifyDims(IndexSpace& space, size_t begin, size_t end);
/// Splits dim d into (extent / inner, inner), `inner` the largest divisor of the extent not
/// above `limit`. Returns false (changing nothing) when the extent is within the limit.
bool splitDim(IndexSpace& space, size_t d, int64_t limit);
/// Inserts an extent-1 dim (stride 0 for every operand) before position d.
void insertUnitDim(IndexSpace& space, size_t d);

}  // namespace npusim::compiler
