// The CPU segments' code of a loaded artifact: its "cpu" section (LLVM IR text) compiled for
// the host by LLVM's ORC JIT when the artifact is loaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "arch/dtype.h"

namespace npusim::runtime {

class CpuCode {
public:
    /// A kernel: buffers[i] points at the i-th tensor of its segment (inputs, then outputs).
    /// Returns 0, or the compiler's KernelStatus when the inputs break the op's rules
    /// (1: an index out of range).
    using Kernel = int64_t (*)(void* const* buffers);

    /// One buffer a kernel was compiled for.
    struct Buffer {
        DType dtype = DType::Fp32;
        int64_t elements = 0;
        bool operator==(const Buffer&) const = default;
    };

    /// Parses `llvmIr` and hands it to the JIT; InputError naming the section when it is not
    /// valid LLVM IR.
    explicit CpuCode(std::span<const std::byte> llvmIr);
    ~CpuCode();
    CpuCode(const CpuCode&) = delete;
    CpuCode& operator=(const CpuCode&) = delete;

    /// The buffers kernel `symbol` takes (its @<symbol>.buffers constant); InputError when the
    /// code defines no such kernel.
    const std::vector<Buffer>& buffers(const std::string& symbol) const;
    /// The kernel named `symbol`, compiled on first use; InputError when the code defines no
    /// such kernel (no other symbol, of the process or the module, is ever returned).
    Kernel kernel(const std::string& symbol) const;

private:
    struct Jit;
    std::unique_ptr<Jit> jit_;
    std::map<std::string, std::vector<Buffer>> kernels_;  ///< the module's kernels
};

}  // namespace npusim::runtime
