// An Einsum equation parsed against its operands' shapes, shared by the reference semantics, the
// pass that lowers contractions to MatMul and the CPU kernel of the rest.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler::ops {

/// Each operand's labels, one per dim, and the output's. An ellipsis becomes one label per dim it
/// covers ('0', '1', ...), right-aligned across operands so that those dims broadcast; without
/// "->" the output is the ellipsis, then the letters used once, in ASCII order.
struct EinsumEquation {
    std::vector<std::string> inputs;
    std::string output;
    std::map<char, int64_t> sizes;  ///< each label's size (a dim of 1 broadcasts to it)

    /// Labels summed over: in some input, not in the output.
    std::string contracted() const;
    /// The output's shape.
    Shape outputShape() const;
};

/// Parses the node's equation for operands of `shapes`; opError naming what does not fit.
EinsumEquation parseEinsum(const Node& node, const std::vector<Shape>& shapes);

}  // namespace npusim::compiler::ops
