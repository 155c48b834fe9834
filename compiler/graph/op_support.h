// What code reading a node needs beyond the graph IR itself: numpy broadcasting, strides, axis
// normalisation and index checks, constant operands and list and string attributes, each
// failing with a located diagnostic. Public: the op implementations, passes, tiling and the
// CPU kernels all read nodes through it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arch/int_math.h"
#include "compiler/graph/graph.h"

namespace npusim::compiler::ops {

/// The numpy broadcast of `a` and `b`; opError naming both shapes when they do not broadcast.
Shape broadcastShapes(const Node& node, const Shape& a, const Shape& b);

/// Row-major strides (in elements) of `dims` left-padded with ones to `rank`; a broadcast
/// (size 1) dim gets stride 0, so every index along it reads the same element.
std::vector<int64_t> broadcastStrides(const Shape& dims, size_t rank);

/// Row-major strides, in elements, of a dense tensor of `shape`.
std::vector<int64_t> rowMajorStrides(const Shape& shape);

/// For each element of `output` in row-major order, the flat index of the element it reads from
/// a tensor of `source` shape numpy-broadcast to `output`.
std::vector<int64_t> broadcastSourceIndices(const Shape& source, const Shape& output);

/// The constant of input `index`, which decides the output shape (Range's start, OneHot's
/// depth...); opError saying that `what` must be constant when it is not.
const Tensor& constantInput(const Graph& graph, const Node& node, size_t index, const char* what);

/// The values of integer input `index`, which decides the output shape (axes, shape, pads...):
/// read from its constant; opError saying that `what` must be constant when it is not.
std::vector<int64_t> constantInts(const Graph& graph, const Node& node, size_t index,
                                  const char* what);

/// An int list that older opsets give as attribute `key` and newer ones as input `index`
/// (Squeeze's axes, Split's split, Pad's pads...): the attribute when the node has it, else the
/// input, which must then be constant (see constantInts); nullopt when neither is present.
std::optional<std::vector<int64_t>> intsFromAttributeOrInput(const Graph& graph, const Node& node,
                                                             const std::string& key, size_t index);
/// The same for the reference semantics, which read the input tensor itself.
std::optional<std::vector<int64_t>> intsFromAttributeOrInput(const Node& node,
                                                             std::span<const Tensor* const> inputs,
                                                             const std::string& key, size_t index);

/// A tensor of `shape` whose element i is element sourceIndices[i] of `source` (same dtype):
/// Transpose, Slice, Gather, Expand, Tile... are this with their own indices.
Tensor takeElements(const Tensor& source, Shape shape, std::span<const int64_t> sourceIndices);

/// Calls visit(position) for every multi-index `position` (a const std::vector<int64_t>&) of
/// `shape`, in row-major order; once, with an empty position, for a scalar.
template <class Visit>
void forEachPosition(const Shape& shape, Visit visit) {
    if (elementCount(shape) == 0) return;
    std::vector<int64_t> position(shape.size(), 0);
    for (;;) {
        visit(static_cast<const std::vector<int64_t>&>(position));
        size_t dim = shape.size();
        for (; dim > 0; --dim) {
            if (++position[dim - 1] < shape[dim - 1]) break;
            position[dim - 1] = 0;
        }
        if (dim == 0) return;
    }
}

/// An ONNX axis in [-rank, rank) made non-negative; opError naming `what` when out of range.
int64_t normalizeAxis(const Node& node, int64_t axis, int64_t rank, const char* what = "axis");
/// The axis of Gather, GatherElements and ScatterElements over `data` (rank >= 1), normalised.
int64_t gatherAxis(const Node& node, const Shape& data);

/// An index into axis `axis` of size `size` made non-negative (a negative one counts from the
/// back); opError unless it is in [-size, size).
int64_t checkedIndex(const Node& node, int64_t index, int64_t size, int64_t axis);

/// A list-of-ints attribute, `fallback` when absent; opError when it has another type.
std::vector<int64_t> intListAttr(const Node& node, const std::string& key,
                                 std::vector<int64_t> fallback = {});
/// A string attribute, `fallback` when absent; opError when it has another type.
std::string stringAttr(const Node& node, const std::string& key, const std::string& fallback);

/// The result type of a float MatMul or Gemm over `operands`: their own, or with 16-bit
/// operands the `output_type` attribute's (an ONNX element type: fp32 keeps the accumulator's
/// sums unrounded; npusim's lower-precision pass sets it where fp32 ops read the result).
DType floatProductType(const Node& node, DType operands);

}  // namespace npusim::compiler::ops
