// Loop IR -> LLVM IR: each kernel becomes `i64 @name(ptr %buffers)` (its KernelStatus),
// %buffers an array of pointers to its tensors in argument order, and a constant
// `@name.buffers` of [dtype, elements] per buffer, for the runtime to check the bindings with.
// The module is verified and optimised (O2) before it is printed; the runtime JIT-compiles
// the text when it loads the artifact.
#pragma once

#include <string>
#include <vector>

#include "compiler/cpu/loop_ir.h"

namespace npusim::compiler::cpu {

/// The kernels as one LLVM module in text form.
std::string emitLlvmModule(const std::vector<Kernel>& kernels, const std::string& moduleName);

}  // namespace npusim::compiler::cpu
