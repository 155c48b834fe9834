// Ops whose output sizes depend on their inputs' values: NonZero, Compress, Unique and
// NonMaxSuppression. The graph IR keeps static shapes, so such an op's outputs have the largest
// size its inputs allow along that dim (its bound), zero past the actual size, and the op has one
// more output after ONNX's, an int64 scalar holding the actual size (its "size output"). The
// padding must stay apart from real values through the ops that read it (as a shape bucket's
// does, compiler/graph/padding_check.h); the graph outputs it reaches name the size output on
// their padded dims (Value::symbols), and whoever runs the graph cuts them to the size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

struct DataDependentSize {
    size_t sizeOutput = 0;                         ///< the int64 scalar output holding the size
    std::vector<std::pair<size_t, int64_t>> dims;  ///< (output, dim) padded to the bound
};

/// Where a node's data-dependent size goes; nullopt for an op whose sizes its input shapes decide.
std::optional<DataDependentSize> dataDependentSize(const Graph& graph, const Node& node);
/// The number of ONNX outputs of a data-dependent op kind (its size output comes after them);
/// nullopt for other kinds.
std::optional<size_t> onnxOutputCount(OpKind kind);

/// Follows every data-dependent size from its op through the graph (throwing InputError naming
/// the first op that would mix its padding into real values, or that reads the shape of a padded
/// value) and names the size output on the padded dims of the graph outputs it reaches.
void markDataDependentOutputs(Graph& graph);

}  // namespace npusim::compiler
