// Ordering ops for few segments: every switch between the NPU and the host costs a job launch,
// copies and an idle NPU, so ops are reordered (dependencies kept) to stay on one side while
// any op of that side is ready.
#pragma once

#include "compiler/graph/graph.h"
#include "compiler/tile/tile_ir.h"

namespace npusim::compiler {

/// Reorders program.ops into a dependency-respecting order that switches between NPU ops and
/// CPU ops (HostTiles) as rarely as this greedy rule gets: starting on the NPU, take the
/// earliest ready op of the current side, and switch sides only when none is ready. Ops without
/// kernels go with either side.
void orderForSegments(TileProgram& program, const Graph& graph);

}  // namespace npusim::compiler
