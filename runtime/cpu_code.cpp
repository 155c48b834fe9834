// LLJIT as in LLVM's "Building a JIT" examples: one JIT per loaded artifact, holding one
// module parsed from text; kernels are looked up by symbol (LLVM 15: an ExecutorAddr).
#include "runtime/cpu_code.h"

#include <mutex>
#include <set>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Module.h>
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

/// The C library functions optimised kernels may call (loops recognised as memset or memcpy,
/// rounding, float remainders, the double functions of the math kernels, scratch memory, fp16
/// conversions where the host lacks them): the only process symbols the JIT resolves.
bool kernelLibraryFunction(const llvm::orc::SymbolStringPtr& name) {
    static const std::set<std::string> kAllowed = {
        "memset", "memcpy", "memmove", "roundevenf", "roundeven", "fmodf", "fmod", "floorf", "floor", "ceilf", "ceil",
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "exp", "log",
        "malloc", "free", "__extendhfsf2", "__truncsfhf2"};
    return kAllowed.contains(std::string(*name));
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
    // Kernels are the functions the module defines; each has its buffer list beside it.
    for (const llvm::Function& function : module->functions()) {
        if (function.isDeclaration()) continue;
        const std::string name = function.getName().str();
        const llvm::GlobalVariable* list = module->getGlobalVariable(name + ".buffers");
        const auto* data = list && list->hasInitializer()
                               ? llvm::dyn_cast<llvm::ConstantDataArray>(list->getInitializer())
                               : nullptr;
        if (!data || data->getNumElements() % 2 != 0) throw InputError(sectionError("kernel '" + name + "' has no buffer list"));
        std::vector<Buffer>& buffers = kernels_[name];
        for (unsigned i = 0; i < data->getNumElements(); i += 2) {
            const uint64_t dtype = data->getElementAsInteger(i);
            if (dtype >= kDTypeCount) throw InputError(sectionError("kernel '" + name + "' has a buffer of unknown dtype"));
            buffers.push_back({static_cast<DType>(dtype), static_cast<int64_t>(data->getElementAsInteger(i + 1))});
        }
    }
    llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit = llvm::orc::LLJITBuilder().create();
    if (!jit) throw RunError("cannot start the JIT: " + llvm::toString(jit.takeError()));
    jit_->jit = std::move(*jit);
    llvm::Expected<std::unique_ptr<llvm::orc::DynamicLibrarySearchGenerator>> process =
        llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit_->jit->getDataLayout().getGlobalPrefix(),
                                                                       kernelLibraryFunction);
    if (!process) throw RunError("cannot expose the C library to the JIT: " + llvm::toString(process.takeError()));
    jit_->jit->getMainJITDylib().addGenerator(std::move(*process));
    if (llvm::Error error = jit_->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
        throw InputError(sectionError(llvm::toString(std::move(error))));
    }
}

CpuCode::~CpuCode() = default;

const std::vector<CpuCode::Buffer>& CpuCode::buffers(const std::string& symbol) const {
    const auto it = kernels_.find(symbol);
    if (it == kernels_.end()) throw InputError(sectionError("no kernel '" + symbol + "'"));
    return it->second;
}

CpuCode::Kernel CpuCode::kernel(const std::string& symbol) const {
    buffers(symbol);  // a kernel of the module, not any symbol the JIT could find
    llvm::Expected<llvm::orc::ExecutorAddr> address = jit_->jit->lookup(symbol);
    if (!address) throw InputError(sectionError("kernel '" + symbol + "': " + llvm::toString(address.takeError())));
    return address->toPtr<Kernel>();
}

}  // namespace npusim::runtime
