// The CPU segments' code of a loaded artifact: its "cpu" section (LLVM IR text) compiled for
// the host by LLVM's ORC JIT when the artifact is loaded.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace npusim::runtime {

class CpuCode {
public:
    /// A kernel: buffers[i] points at the i-th tensor of its segment (inputs, then outputs).
    using Kernel = void (*)(void* const* buffers);

    /// JIT-compiles `llvmIr`; InputError naming the section when it is not valid LLVM IR.
    explicit CpuCode(std::span<const std::byte> llvmIr);
    ~CpuCode();
    CpuCode(const CpuCode&) = delete;
    CpuCode& operator=(const CpuCode&) = delete;

    /// The kernel named `symbol`, compiled on first use; InputError when the code has none.
    Kernel kernel(const std::string& symbol) const;

private:
    struct Jit;
    std::unique_ptr<Jit> jit_;
};

}  // namespace npusim::runtime
