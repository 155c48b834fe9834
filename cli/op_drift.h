// --check-per-op: where a compiled program's values drift from the reference's, op by op.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "arch/tensor.h"
#include "compiler/graph/graph.h"
#include "reports/report.h"

namespace npusim::cli {

/// Interprets the reference graph (the model as imported) and the compiled program on the same
/// inputs and compares, in the reference's op order, every op result the program still computes
/// under the same name and shape: how far the program's values have drifted at each op.
std::vector<reports::OpDrift> opDrift(const compiler::Graph& reference, const compiler::Graph& program,
                                      const std::map<std::string, Tensor>& inputs);

}  // namespace npusim::cli
