// Test helpers for CPU kernels: a one-op graph's kernel JIT-compiled by the runtime's CpuCode
// and run on real buffers, compared with the reference interpreter.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "compiler/graph/graph.h"

namespace npusim::compiler::testing {

std::span<const std::byte> bytesOf(const std::string& text);

/// Runs the CPU kernel of the graph's one op on `inputs` and compares it with the interpreter.
void expectKernelMatchesReference(const Graph& graph, const std::map<std::string, Tensor>& inputs);

/// The status the CPU kernel of the graph's one op returns on `inputs` (0: it ran).
int64_t kernelStatus(const Graph& graph, const std::map<std::string, Tensor>& inputs);

/// Values from a small range, so that ties occur.
Tensor smallIntegers(DType dtype, Shape shape, uint32_t seed, int range);

}  // namespace npusim::compiler::testing
