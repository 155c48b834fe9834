// The pure data-movement ops (Reshape, Transpose, Concat, Slice, Gather...) described as
// strided copies: each output element is one input element, and the mapping is affine on
// each of a few pieces. Lowering turns each piece into a DMA-only kernel; the reference
// semantics stay in the op implementations, which share their layout logic with this.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Copies, for every index (i0, i1, ...) of `dims`, element
/// `inputOffset + sum(i_d * inputStrides[d])` of input `input` to element
/// `outputOffset + sum(i_d * outputStrides[d])` of output `output` (offsets and strides in
/// elements; a stride may be 0 to repeat an element, or negative to walk backwards).
/// A piece with `fill` set reads no input: it writes that one-element value (of the output's
/// dtype) to every element it covers (Pad's constant).
struct StridedCopy {
    size_t input = 0, output = 0;
    Shape dims;
    int64_t inputOffset = 0, outputOffset = 0;
    std::vector<int64_t> inputStrides, outputStrides;
    std::optional<Tensor> fill;
};

/// The copies that together write every output element of a data-movement node once; nullopt
/// when the node computes (or when Gather's indices or Trilu's k are not constant). The graph's
/// values must have their inferred types.
std::optional<std::vector<StridedCopy>> stridedCopies(const Graph& graph, const Node& node);

}  // namespace npusim::compiler
