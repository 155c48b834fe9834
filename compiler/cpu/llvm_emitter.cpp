// The translation follows the shape of LLVM's Kaleidoscope tutorial: locals and loop variables
// live in entry-block allocas and mem2reg (inside the O2 pipeline) turns them into registers;
// every expression is emitted afresh at the statement that uses it.
#include "compiler/cpu/llvm_emitter.h"

#include <algorithm>
#include <stdexcept>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>

namespace npusim::compiler::cpu {
namespace {

llvm::Type* scalarType(llvm::LLVMContext& context, Scalar type) {
    switch (type) {
        case Scalar::I1: return llvm::Type::getInt1Ty(context);
        case Scalar::I32: return llvm::Type::getInt32Ty(context);
        case Scalar::I64: return llvm::Type::getInt64Ty(context);
        case Scalar::F32: return llvm::Type::getFloatTy(context);
        case Scalar::F64: return llvm::Type::getDoubleTy(context);
    }
    return nullptr;
}

llvm::Type* elementType(llvm::LLVMContext& context, DType dtype) {
    switch (dtype) {
        case DType::Fp32: return llvm::Type::getFloatTy(context);
        case DType::Int32: return llvm::Type::getInt32Ty(context);
        case DType::Int64: return llvm::Type::getInt64Ty(context);
        case DType::Fp16: return llvm::Type::getHalfTy(context);
        case DType::Bf16: return llvm::Type::getInt16Ty(context);  // the high half of an fp32
        default: return llvm::Type::getInt8Ty(context);  // int8, uint8, bool
    }
}

class FunctionEmitter {
public:
    FunctionEmitter(const Kernel& kernel, llvm::Module& module)
        : kernel_(kernel), context_(module.getContext()), module_(module), b_(context_) {}

    void emit() {
        llvm::Type* pointer = llvm::PointerType::get(context_, 0);
        auto* type = llvm::FunctionType::get(b_.getInt64Ty(), {pointer}, false);
        function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, kernel_.name, module_);
        llvm::Argument* buffers = function_->getArg(0);
        buffers->setName("buffers");
        b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", function_));
        uint64_t argument = 0;
        for (const Buffer& buffer : kernel_.buffers) {
            if (buffer.scratch) {
                bases_.push_back(allocate(buffer));
                continue;
            }
            llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(pointer, buffers, argument++);
            bases_.push_back(b_.CreateLoad(pointer, slot, buffer.name));
        }
        for (Scalar local : kernel_.locals) locals_.push_back(b_.CreateAlloca(scalarType(context_, local)));
        for (uint32_t i = 0; i < kernel_.loopVars; ++i) loopVars_.push_back(b_.CreateAlloca(b_.getInt64Ty()));
        if (!scratch_.empty()) checkAllocations();
        body(kernel_.body);
        ret(KernelStatus::Ok);
        signature();
    }

private:
    void body(const std::vector<Stmt>& statements) {
        for (const Stmt& s : statements) {
            switch (s.kind) {
                case StmtKind::For: loop(s); break;
                case StmtKind::Assign: b_.CreateStore(expr(s.a), locals_.at(s.slot)); break;
                case StmtKind::Store: store(s); break;
                case StmtKind::Fail: {
                    ret(static_cast<KernelStatus>(s.slot));
                    // What follows a return is unreachable; it still needs a block.
                    b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "after_fail", function_));
                    break;
                }
                case StmtKind::If: {
                    auto* then = llvm::BasicBlock::Create(context_, "then", function_);
                    auto* merge = llvm::BasicBlock::Create(context_, "endif", function_);
                    b_.CreateCondBr(expr(s.a), then, merge);
                    b_.SetInsertPoint(then);
                    body(s.body);
                    b_.CreateBr(merge);
                    b_.SetInsertPoint(merge);
                    break;
                }
            }
        }
    }

    /// malloc of a scratch buffer's bytes (freed by ret).
    llvm::Value* allocate(const Buffer& buffer) {
        const uint64_t bytes = static_cast<uint64_t>(buffer.elements) *
                               module_.getDataLayout().getTypeAllocSize(scalarType(context_, *buffer.scratch));
        llvm::Type* pointer = llvm::PointerType::get(context_, 0);
        const llvm::FunctionCallee malloc =
            module_.getOrInsertFunction("malloc", llvm::FunctionType::get(pointer, {b_.getInt64Ty()}, false));
        llvm::Value* memory = b_.CreateCall(malloc, {b_.getInt64(std::max<uint64_t>(bytes, 1))}, buffer.name);
        scratch_.push_back(memory);
        return memory;
    }

    /// Returns OutOfMemory (freeing what was allocated) when any scratch allocation failed.
    void checkAllocations() {
        llvm::Value* failed = b_.getFalse();
        for (llvm::Value* memory : scratch_) failed = b_.CreateOr(failed, b_.CreateIsNull(memory));
        auto* fail = llvm::BasicBlock::Create(context_, "out_of_memory", function_);
        auto* run = llvm::BasicBlock::Create(context_, "run", function_);
        b_.CreateCondBr(failed, fail, run);
        b_.SetInsertPoint(fail);
        ret(KernelStatus::OutOfMemory);
        b_.SetInsertPoint(run);
    }

    /// Frees the scratch memory and returns `status`.
    void ret(KernelStatus status) {
        if (!scratch_.empty()) {
            llvm::Type* pointer = llvm::PointerType::get(context_, 0);
            const llvm::FunctionCallee free =
                module_.getOrInsertFunction("free", llvm::FunctionType::get(b_.getVoidTy(), {pointer}, false));
            for (llvm::Value* memory : scratch_) b_.CreateCall(free, {memory});
        }
        b_.CreateRet(b_.getInt64(static_cast<uint64_t>(status)));
    }

    /// @<name>.buffers: the dtype code and element count of each argument buffer.
    void signature() {
        std::vector<uint64_t> fields;
        for (const Buffer& buffer : kernel_.buffers) {
            if (buffer.scratch) continue;
            fields.push_back(static_cast<uint64_t>(buffer.dtype));
            fields.push_back(static_cast<uint64_t>(buffer.elements));
        }
        llvm::Constant* data = llvm::ConstantDataArray::get(context_, fields);
        new llvm::GlobalVariable(module_, data->getType(), true, llvm::GlobalValue::ExternalLinkage, data,
                                 kernel_.name + ".buffers");
    }

    void loop(const Stmt& s) {
        llvm::Value* variable = loopVars_.at(s.slot);
        b_.CreateStore(b_.getInt64(0), variable);
        auto* test = llvm::BasicBlock::Create(context_, "loop", function_);
        auto* inside = llvm::BasicBlock::Create(context_, "body", function_);
        auto* done = llvm::BasicBlock::Create(context_, "done", function_);
        b_.CreateBr(test);
        b_.SetInsertPoint(test);
        llvm::Value* index = b_.CreateLoad(b_.getInt64Ty(), variable);
        llvm::Value* bound = s.runTimeBound ? static_cast<llvm::Value*>(b_.CreateLoad(b_.getInt64Ty(), locals_.at(s.a)))
                                            : b_.getInt64(s.extent);
        b_.CreateCondBr(b_.CreateICmpSLT(index, bound), inside, done);
        b_.SetInsertPoint(inside);
        body(s.body);
        llvm::Value* next = b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), variable), b_.getInt64(1));
        b_.CreateStore(next, variable);
        b_.CreateBr(test);
        b_.SetInsertPoint(done);
    }

    /// The type a buffer holds in memory.
    llvm::Type* memoryType(const Buffer& buffer) {
        return buffer.scratch ? scalarType(context_, *buffer.scratch) : elementType(context_, buffer.dtype);
    }

    llvm::Value* address(uint32_t buffer, uint32_t index) {
        return b_.CreateInBoundsGEP(memoryType(kernel_.buffers.at(buffer)), bases_.at(buffer), {expr(index)});
    }

    void store(const Stmt& s) {
        const Buffer& buffer = kernel_.buffers.at(s.slot);
        const DType dtype = buffer.dtype;
        llvm::Value* value = expr(s.b);
        if (buffer.scratch) {
            b_.CreateStore(value, address(s.slot, s.a));
            return;
        }
        if (dtype == DType::Int8 || dtype == DType::UInt8) value = b_.CreateTrunc(value, b_.getInt8Ty());
        if (dtype == DType::Bool) value = b_.CreateZExt(value, b_.getInt8Ty());
        if (dtype == DType::Fp16) value = b_.CreateFPTrunc(value, b_.getHalfTy());  // to nearest even
        if (dtype == DType::Bf16) value = roundToBf16(value);
        b_.CreateStore(value, address(s.slot, s.a));
    }

    llvm::Value* expr(uint32_t id) {
        const Expr& e = kernel_.exprs.at(id);
        llvm::Type* type = scalarType(context_, e.type);
        switch (e.kind) {
            case ExprKind::Int: return llvm::ConstantInt::get(type, static_cast<uint64_t>(e.intValue), true);
            case ExprKind::Float: return llvm::ConstantFP::get(type, e.floatValue);
            case ExprKind::LoopVar: return b_.CreateLoad(type, loopVars_.at(e.slot));
            case ExprKind::Local: return b_.CreateLoad(type, locals_.at(e.slot));
            case ExprKind::Load: return loadElement(e);
            case ExprKind::Binary: return binary(e, expr(e.a), expr(e.b));
            case ExprKind::Compare: return compare(e, expr(e.a), expr(e.b));
            case ExprKind::Select: return b_.CreateSelect(expr(e.a), expr(e.b), expr(e.c));
            case ExprKind::Cast: return cast(kernel_.exprs.at(e.a).type, e.type, expr(e.a));
            case ExprKind::Round: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, expr(e.a));
            case ExprKind::Math: return math(e.math, e.type == Scalar::F64, expr(e.a));
        }
        throw std::logic_error("kernel expression of unknown kind");
    }

    llvm::Value* math(MathFn function, bool wide, llvm::Value* x) {
        switch (function) {
            case MathFn::Floor: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
            case MathFn::Ceil: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
            case MathFn::IsNaN: return b_.CreateFCmpUNO(x, x);
            default: break;
        }
        // The C library's double function (of an f32 rounded once: as exact as the reference's).
        constexpr const char* kSymbols[] = {nullptr, nullptr, nullptr, "sin", "cos", "tan", "asin", "acos",
                                            "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "exp", "log"};
        llvm::Type* f64 = b_.getDoubleTy();
        const llvm::FunctionCallee callee =
            module_.getOrInsertFunction(kSymbols[static_cast<size_t>(function)], llvm::FunctionType::get(f64, {f64}, false));
        if (wide) return b_.CreateCall(callee, {x});
        return b_.CreateFPTrunc(b_.CreateCall(callee, {b_.CreateFPExt(x, f64)}), b_.getFloatTy());
    }

    llvm::Value* loadElement(const Expr& e) {
        const Buffer& buffer = kernel_.buffers.at(e.slot);
        const DType dtype = buffer.dtype;
        llvm::Value* raw = b_.CreateLoad(memoryType(buffer), address(e.slot, e.a));
        if (buffer.scratch) return raw;
        switch (dtype) {
            case DType::Int8: return b_.CreateSExt(raw, b_.getInt32Ty());
            case DType::UInt8: return b_.CreateZExt(raw, b_.getInt32Ty());
            case DType::Bool: return b_.CreateICmpNE(raw, b_.getInt8(0));
            case DType::Fp16: return b_.CreateFPExt(raw, b_.getFloatTy());
            case DType::Bf16: return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(raw, b_.getInt32Ty()), 16), b_.getFloatTy());
            default: return raw;
        }
    }

    /// The fp32 `value` rounded to bfloat16, to nearest even; NaN stays a (quiet) NaN.
    llvm::Value* roundToBf16(llvm::Value* value) {
        llvm::Value* bits = b_.CreateBitCast(value, b_.getInt32Ty());
        llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), 1);
        llvm::Value* rounded = b_.CreateLShr(b_.CreateAdd(bits, b_.CreateAdd(lsb, b_.getInt32(0x7FFF))), 16);
        llvm::Value* quietNan = b_.CreateOr(b_.CreateLShr(bits, 16), b_.getInt32(0x40));
        llvm::Value* isNan = b_.CreateFCmpUNO(value, value);
        return b_.CreateTrunc(b_.CreateSelect(isNan, quietNan, rounded), b_.getInt16Ty());
    }

    llvm::Value* binary(const Expr& e, llvm::Value* a, llvm::Value* b) {
        if (isReal(e.type)) {
            switch (e.binary) {
                case BinaryOp::Add: return b_.CreateFAdd(a, b);
                case BinaryOp::Sub: return b_.CreateFSub(a, b);
                case BinaryOp::Mul: return b_.CreateFMul(a, b);
                case BinaryOp::Div: return b_.CreateFDiv(a, b);
                case BinaryOp::Rem: return b_.CreateFRem(a, b);
                case BinaryOp::Min: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, a, b);
                case BinaryOp::Max: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, b);
                case BinaryOp::And:
                case BinaryOp::Or:
                case BinaryOp::Shl:
                case BinaryOp::Shr: break;
            }
            throw std::logic_error("kernel bitwise op on floats");
        }
        switch (e.binary) {
            case BinaryOp::Add: return b_.CreateAdd(a, b);
            case BinaryOp::Sub: return b_.CreateSub(a, b);
            case BinaryOp::Mul: return b_.CreateMul(a, b);
            case BinaryOp::Div: return b_.CreateSDiv(a, b);
            case BinaryOp::Rem: return b_.CreateSRem(a, b);
            case BinaryOp::Min: return b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b);
            case BinaryOp::Max: return b_.CreateSelect(b_.CreateICmpSGT(a, b), a, b);
            case BinaryOp::And: return b_.CreateAnd(a, b);
            case BinaryOp::Or: return b_.CreateOr(a, b);
            case BinaryOp::Shl: return b_.CreateShl(a, b);
            case BinaryOp::Shr: return b_.CreateLShr(a, b);
        }
        throw std::logic_error("kernel binary op of unknown kind");
    }

    llvm::Value* compare(const Expr& e, llvm::Value* a, llvm::Value* b) {
        const bool real = isReal(kernel_.exprs.at(e.a).type);
        using P = llvm::CmpInst::Predicate;
        static constexpr P kFloat[] = {P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE, P::FCMP_OEQ, P::FCMP_UNE};
        static constexpr P kInteger[] = {P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT, P::ICMP_SGE, P::ICMP_EQ, P::ICMP_NE};
        const auto index = static_cast<size_t>(e.compare);
        return real ? b_.CreateFCmp(kFloat[index], a, b) : b_.CreateICmp(kInteger[index], a, b);
    }

    llvm::Value* cast(Scalar from, Scalar to, llvm::Value* value) {
        llvm::Type* type = scalarType(context_, to);
        if (to == Scalar::I1) {  // a truth value: non-zero
            return isReal(from) ? b_.CreateFCmpUNE(value, llvm::ConstantFP::get(value->getType(), 0.0))
                                : b_.CreateICmpNE(value, llvm::ConstantInt::get(value->getType(), 0));
        }
        if (isReal(from) && isReal(to)) return to == Scalar::F64 ? b_.CreateFPExt(value, type) : b_.CreateFPTrunc(value, type);
        if (isReal(from)) return b_.CreateFPToSI(value, type);
        if (isReal(to)) return from == Scalar::I1 ? b_.CreateUIToFP(value, type) : b_.CreateSIToFP(value, type);
        if (from == Scalar::I1) return b_.CreateZExt(value, type);
        return b_.CreateSExtOrTrunc(value, type);
    }

    const Kernel& kernel_;
    llvm::LLVMContext& context_;
    llvm::Module& module_;
    llvm::IRBuilder<> b_;
    llvm::Function* function_ = nullptr;
    std::vector<llvm::Value*> bases_, locals_, loopVars_;
    std::vector<llvm::Value*> scratch_;  ///< the scratch allocations, freed at every return
};

void optimize(llvm::Module& module) {
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager cgscc;
    llvm::ModuleAnalysisManager modules;
    llvm::PassBuilder builder;
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(cgscc);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, cgscc, modules);
    builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(module, modules);
}

}  // namespace

std::string emitLlvmModule(const std::vector<Kernel>& kernels, const std::string& moduleName) {
    llvm::LLVMContext context;
    llvm::Module module(moduleName, context);
    for (const Kernel& kernel : kernels) FunctionEmitter(kernel, module).emit();
    std::string problems;
    llvm::raw_string_ostream report(problems);
    if (llvm::verifyModule(module, &report)) throw std::logic_error("CPU kernels are invalid LLVM IR: " + problems);
    optimize(module);
    std::string text;
    llvm::raw_string_ostream out(text);
    module.print(out, nullptr);
    out.flush();
    return text;
}

}  // namespace npusim::compiler::cpu
