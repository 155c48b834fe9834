// Shape helpers the op implementations share: numpy broadcasting, axis normalisation and
// strides. Internal to compiler/graph (included by op implementation files only).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler::ops {

/// The numpy broadcast of `a` and `b`; opError naming both shapes when they do not broadcast.
Shape broadcastShapes(const Node& node, const Shape& a, const Shape& b);

/// Row-major strides (in elements) of `dims` left-padded with ones to `rank`; a broadcast
/// (size 1) dim gets stride 0, so every index along it reads the same element.
std::vector<int64_t> broadcastStrides(const Shape& dims, size_t rank);

/// Row-major strides, in elements, of a dense tensor of `shape`.
std::vector<int64_t> rowMajorStrides(const Shape& shape);

/// An ONNX axis in [-rank, rank) made non-negative; opError naming `what` when out of range.
int64_t normalizeAxis(const Node& node, int64_t axis, int64_t rank, const char* what = "axis");

}  // namespace npusim::compiler::ops
