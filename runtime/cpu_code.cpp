// LLJIT as in LLVM's "Building a JIT" examples: one JIT per loaded artifact, holding one
// module parsed from text; kernels are looked up by symbol (LLVM 15: an ExecutorAddr).
#include "runtime/cpu_code.h"

#include <mutex>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>

#include "arch/artifact.h"
#include "arch/error.h"

namespace npusim::runtime {
namespace {

std::string sectionError(const std::string& what) {
    return "artifact section '" + std::string(kCpuSection) + "': " + what;
}

void initializeNativeTarget() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
    });
}

}  // namespace

struct CpuCode::Jit {
    std::unique_ptr<llvm::orc::LLJIT> jit;
};

CpuCode::CpuCode(std::span<const std::byte> llvmIr) : jit_(std::make_unique<Jit>()) {
    initializeNativeTarget();
    auto context = std::make_unique<llvm::LLVMContext>();
    // LLVM's parser reads up to a terminating NUL, which std::string keeps after its bytes.
    const std::string text(reinterpret_cast<const char*>(llvmIr.data()), llvmIr.size());
    llvm::SMDiagnostic diagnostic;
    std::unique_ptr<llvm::Module> module =
        llvm::parseIR(llvm::MemoryBufferRef(text, kCpuSection), diagnostic, *context);
    if (!module) {
        throw InputError(sectionError("line " + std::to_string(diagnostic.getLineNo()) + ": " +
                                      diagnostic.getMessage().str()));
    }
    llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit = llvm::orc::LLJITBuilder().create();
    if (!jit) throw RunError("cannot start the JIT: " + llvm::toString(jit.takeError()));
    jit_->jit = std::move(*jit);
    // Kernels may call the C library (memset and memcpy from recognised loops, roundevenf).
    llvm::Expected<std::unique_ptr<llvm::orc::DynamicLibrarySearchGenerator>> process =
        llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit_->jit->getDataLayout().getGlobalPrefix());
    if (!process) throw RunError("cannot expose the C library to the JIT: " + llvm::toString(process.takeError()));
    jit_->jit->getMainJITDylib().addGenerator(std::move(*process));
    if (llvm::Error error = jit_->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
        throw InputError(sectionError(llvm::toString(std::move(error))));
    }
}

CpuCode::~CpuCode() = default;

CpuCode::Kernel CpuCode::kernel(const std::string& symbol) const {
    llvm::Expected<llvm::orc::ExecutorAddr> address = jit_->jit->lookup(symbol);
    if (!address) throw InputError(sectionError("kernel '" + symbol + "': " + llvm::toString(address.takeError())));
    return address->toPtr<Kernel>();
}

}  // namespace npusim::runtime
