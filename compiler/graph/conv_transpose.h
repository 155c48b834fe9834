// ConvTranspose's geometry for passes that rewrite it: the pads it resolves from its pads,
// auto_pad and output_shape attributes.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// Per spatial dim, the output positions cut from the beginning and the end of the full
/// scatter of a ConvTranspose with input X and weights W; InputError as the op's shape
/// function gives it for attributes that do not fit.
struct ConvTransposePads {
    std::vector<int64_t> begin, end;
};
ConvTransposePads convTransposePads(const Node& node, const Shape& x, const Shape& w);

}  // namespace npusim::compiler
