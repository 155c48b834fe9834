// CPU kernels of the ops the NPU cannot run: each such op becomes a loop-IR kernel over its
// tensors, run on the host between NPU segments.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/cpu/loop_ir.h"
#include "compiler/graph/graph.h"

namespace npusim::compiler::cpu {

/// An op as a CPU kernel: the values bound to the kernel's buffers, in argument order.
struct HostKernel {
    Kernel kernel;
    std::vector<ValueId> inputs, outputs;
};

/// The kernel of `node` (op `opId`), nullopt when the CPU path has none for the op or its
/// dtypes (docs/COMPILER.md lists the ops that have one). Throws InputError (naming the node)
/// for an op whose kernel needs a constant that the graph computes at run time.
std::optional<HostKernel> hostKernelFor(const Graph& graph, const Node& node, uint32_t opId);

}  // namespace npusim::compiler::cpu
