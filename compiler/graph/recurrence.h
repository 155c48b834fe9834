// The geometry of an LSTM, GRU or RNN node, shared by its reference semantics and the pass
// that unrolls it into ops the NPU runs.
#pragma once

#include <cstdint>

#include "compiler/graph/graph.h"

namespace npusim::compiler::ops {

struct Recurrence {
    int64_t gates = 1;  ///< LSTM 4 (i, o, f, c), GRU 3 (z, r, h), RNN 1
    int64_t steps = 0, batch = 0, inputs = 0, hidden = 0, directions = 1;
    bool batchFirst = false;  ///< layout 1: X [batch, steps, inputs], states [batch, directions, hidden]
    bool reverseOnly = false;  ///< direction "reverse"
    bool linearBeforeReset = false;  ///< GRU: r applied after the recurrent product
};

/// The gates of `kind` (LSTM, GRU or RNN).
int64_t recurrenceGates(OpKind kind);
/// The geometry of a node whose types have been inferred.
Recurrence recurrenceOf(const Graph& graph, const Node& node);

}  // namespace npusim::compiler::ops
