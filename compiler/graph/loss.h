// The geometry of a NegativeLogLikelihoodLoss or SoftmaxCrossEntropyLoss node, shared by its
// reference semantics, its CPU kernel and the pass that splits SoftmaxCrossEntropyLoss.
#pragma once

#include <cstdint>
#include <optional>

#include "compiler/graph/graph.h"

namespace npusim::compiler::ops {

enum class LossReduction : uint8_t { None, Sum, Mean };

/// The input [N, C, d1, ..., dk] viewed as [batch, classes, positions]; positions is
/// d1 * ... * dk (1 for an [N, C] input).
struct LossGeometry {
    int64_t batch = 0, classes = 0, positions = 1;
    LossReduction reduction = LossReduction::Mean;
};

/// The geometry of a node whose operands fit the op; opError naming what does not.
LossGeometry lossGeometry(const Graph& graph, const Node& node);
/// The target value that loses nothing, nullopt when the node names none.
std::optional<int64_t> ignoreIndex(const Node& node);

}  // namespace npusim::compiler::ops
