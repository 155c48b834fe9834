// Kernel building, operation counting and the text form.
#include "compiler/cpu/loop_ir.h"

#include <stdexcept>

namespace npusim::compiler::cpu {

Scalar loadedType(DType dtype) {
    switch (dtype) {
        case DType::Fp32:
        case DType::Fp16:
        case DType::Bf16: return Scalar::F32;
        case DType::Int64: return Scalar::I64;
        case DType::Bool: return Scalar::I1;
        default: return Scalar::I32;
    }
}

bool kernelDType(DType dtype) {
    switch (dtype) {
        case DType::Fp32:
        case DType::Fp16:
        case DType::Bf16:
        case DType::Int8:
        case DType::UInt8:
        case DType::Int32:
        case DType::Int64:
        case DType::Bool: return true;
        default: return false;
    }
}

KernelBuilder::KernelBuilder(std::string name) {
    kernel_.name = std::move(name);
    open_.push_back(&kernel_.body);
}

uint32_t KernelBuilder::buffer(std::string name, DType dtype, int64_t elements, bool output) {
    if (!kernelDType(dtype)) throw std::logic_error("kernel buffer of unsupported dtype");
    kernel_.buffers.push_back({std::move(name), dtype, elements, output, std::nullopt});
    return static_cast<uint32_t>(kernel_.buffers.size() - 1);
}

uint32_t KernelBuilder::scratch(std::string name, Scalar type, int64_t elements) {
    if (type == Scalar::I1) throw std::logic_error("kernel scratch of i1");
    kernel_.buffers.push_back({std::move(name), DType::Fp32, elements, false, type});
    return static_cast<uint32_t>(kernel_.buffers.size() - 1);
}

Scalar KernelBuilder::elementType(uint32_t buffer) const {
    const Buffer& b = kernel_.buffers.at(buffer);
    return b.scratch ? *b.scratch : loadedType(b.dtype);
}

KernelBuilder::Value KernelBuilder::push(Expr expr) {
    kernel_.exprs.push_back(expr);
    return {static_cast<uint32_t>(kernel_.exprs.size() - 1)};
}

void KernelBuilder::emit(Stmt stmt) { open_.back()->push_back(std::move(stmt)); }

KernelBuilder::Value KernelBuilder::integer(int64_t value, Scalar type) {
    Expr e;
    e.kind = ExprKind::Int;
    e.type = type;
    e.intValue = value;
    return push(e);
}

KernelBuilder::Value KernelBuilder::real(double value, Scalar type) {
    if (!isReal(type)) throw std::logic_error("kernel float constant of an integer type");
    Expr e;
    e.kind = ExprKind::Float;
    e.type = type;
    e.floatValue = value;
    return push(e);
}

KernelBuilder::Value KernelBuilder::load(uint32_t buffer, Value index) {
    Expr e;
    e.kind = ExprKind::Load;
    e.type = elementType(buffer);
    e.slot = buffer;
    e.a = index.id;
    return push(e);
}

bool KernelBuilder::isInteger(Value value, int64_t constant) const {
    const Expr& e = kernel_.exprs.at(value.id);
    return e.kind == ExprKind::Int && e.intValue == constant;
}

KernelBuilder::Value KernelBuilder::binary(BinaryOp op, Value a, Value b) {
    if (typeOf(a) != typeOf(b)) throw std::logic_error("kernel binary op on different types");
    // x + 0 and x * 1 are x: index arithmetic stays readable in the text form.
    if (op == BinaryOp::Add && isInteger(b, 0)) return a;
    if (op == BinaryOp::Add && isInteger(a, 0)) return b;
    if (op == BinaryOp::Mul && isInteger(b, 1)) return a;
    Expr e;
    e.kind = ExprKind::Binary;
    e.type = typeOf(a);
    e.binary = op;
    e.a = a.id;
    e.b = b.id;
    return push(e);
}

KernelBuilder::Value KernelBuilder::compare(ComparePredicate predicate, Value a, Value b) {
    if (typeOf(a) != typeOf(b)) throw std::logic_error("kernel compare on different types");
    Expr e;
    e.kind = ExprKind::Compare;
    e.type = Scalar::I1;
    e.compare = predicate;
    e.a = a.id;
    e.b = b.id;
    return push(e);
}

KernelBuilder::Value KernelBuilder::select(Value condition, Value ifTrue, Value ifFalse) {
    if (typeOf(condition) != Scalar::I1 || typeOf(ifTrue) != typeOf(ifFalse)) {
        throw std::logic_error("kernel select with mismatched types");
    }
    Expr e;
    e.kind = ExprKind::Select;
    e.type = typeOf(ifTrue);
    e.a = condition.id;
    e.b = ifTrue.id;
    e.c = ifFalse.id;
    return push(e);
}

KernelBuilder::Value KernelBuilder::cast(Value value, Scalar type) {
    if (typeOf(value) == type) return value;
    Expr e;
    e.kind = ExprKind::Cast;
    e.type = type;
    e.a = value.id;
    return push(e);
}

KernelBuilder::Value KernelBuilder::round(Value value) {
    if (!isReal(typeOf(value))) throw std::logic_error("kernel round of a non-float");
    Expr e;
    e.kind = ExprKind::Round;
    e.type = typeOf(value);
    e.a = value.id;
    return push(e);
}

KernelBuilder::Value KernelBuilder::math(MathFn function, Value value) {
    if (!isReal(typeOf(value))) throw std::logic_error("kernel math of a non-float");
    Expr e;
    e.kind = ExprKind::Math;
    e.type = function == MathFn::IsNaN ? Scalar::I1 : typeOf(value);
    e.math = function;
    e.a = value.id;
    return push(e);
}

KernelBuilder::Value KernelBuilder::affine(Value a, int64_t scale, Value offset) {
    return add(mul(a, integer(scale)), offset);
}

uint32_t KernelBuilder::local(Value initial) {
    kernel_.locals.push_back(typeOf(initial));
    const auto slot = static_cast<uint32_t>(kernel_.locals.size() - 1);
    set(slot, initial);
    return slot;
}

KernelBuilder::Value KernelBuilder::get(uint32_t local) {
    Expr e;
    e.kind = ExprKind::Local;
    e.type = kernel_.locals.at(local);
    e.slot = local;
    return push(e);
}

void KernelBuilder::set(uint32_t local, Value value) {
    if (kernel_.locals.at(local) != typeOf(value)) throw std::logic_error("kernel local set to another type");
    Stmt s;
    s.kind = StmtKind::Assign;
    s.slot = local;
    s.a = value.id;
    emit(std::move(s));
}

void KernelBuilder::store(uint32_t buffer, Value index, Value value) {
    if (typeOf(value) != elementType(buffer)) {
        throw std::logic_error("kernel store of another type than the buffer's");
    }
    Stmt s;
    s.kind = StmtKind::Store;
    s.slot = buffer;
    s.a = index.id;
    s.b = value.id;
    emit(std::move(s));
}

void KernelBuilder::loop(int64_t extent, const std::function<void(Value)>& body) {
    Stmt s;
    s.kind = StmtKind::For;
    s.extent = extent;
    forLoop(std::move(s), body);
}

void KernelBuilder::loopUpTo(Value count, int64_t countedExtent, const std::function<void(Value)>& body) {
    if (typeOf(count) != Scalar::I64) throw std::logic_error("kernel loop bound of a non-int64");
    Stmt s;
    s.kind = StmtKind::For;
    s.extent = countedExtent;
    s.runTimeBound = true;
    s.a = local(count);
    forLoop(std::move(s), body);
}

void KernelBuilder::forLoop(Stmt s, const std::function<void(Value)>& body) {
    s.slot = kernel_.loopVars++;
    Expr variable;
    variable.kind = ExprKind::LoopVar;
    variable.type = Scalar::I64;
    variable.slot = s.slot;
    const Value index = push(variable);
    emit(std::move(s));
    open_.push_back(&open_.back()->back().body);
    body(index);
    open_.pop_back();
}

void KernelBuilder::when(Value condition, const std::function<void()>& body) {
    Stmt s;
    s.kind = StmtKind::If;
    s.a = condition.id;
    emit(std::move(s));
    open_.push_back(&open_.back()->back().body);
    body();
    open_.pop_back();
}

void KernelBuilder::fail(KernelStatus status) {
    Stmt s;
    s.kind = StmtKind::Fail;
    s.slot = static_cast<uint32_t>(status);
    emit(std::move(s));
}

Kernel KernelBuilder::finish() { return std::move(kernel_); }

namespace {

std::string_view mathName(MathFn function) {
    constexpr std::string_view kNames[] = {"floor", "ceil", "isnan", "sin", "cos", "tan", "asin", "acos",
                                           "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "exp", "log"};
    return kNames[static_cast<size_t>(function)];
}

uint64_t exprOperations(const Kernel& k, uint32_t id) {
    const Expr& e = k.exprs.at(id);
    switch (e.kind) {
        case ExprKind::Int:
        case ExprKind::Float:
        case ExprKind::LoopVar:
        case ExprKind::Local: return 0;
        case ExprKind::Load:
        case ExprKind::Cast:
        case ExprKind::Round:
        case ExprKind::Math: return 1 + exprOperations(k, e.a);
        case ExprKind::Binary:
        case ExprKind::Compare: return 1 + exprOperations(k, e.a) + exprOperations(k, e.b);
        case ExprKind::Select: return 1 + exprOperations(k, e.a) + exprOperations(k, e.b) + exprOperations(k, e.c);
    }
    return 0;
}

uint64_t statementOperations(const Kernel& k, const std::vector<Stmt>& body) {
    uint64_t total = 0;
    for (const Stmt& s : body) {
        switch (s.kind) {
            case StmtKind::For:
                total += static_cast<uint64_t>(s.extent) * (1 + statementOperations(k, s.body));
                break;
            case StmtKind::Assign: total += exprOperations(k, s.a); break;
            case StmtKind::Store: total += 1 + exprOperations(k, s.a) + exprOperations(k, s.b); break;
            // A taken branch is counted as if always taken: an upper bound.
            case StmtKind::If: total += 1 + exprOperations(k, s.a) + statementOperations(k, s.body); break;
            case StmtKind::Fail: total += 1; break;
        }
    }
    return total;
}

const char* scalarName(Scalar type) {
    switch (type) {
        case Scalar::I1: return "i1";
        case Scalar::I32: return "i32";
        case Scalar::I64: return "i64";
        case Scalar::F32: return "f32";
        case Scalar::F64: return "f64";
    }
    return "?";
}

const char* binaryName(BinaryOp op) {
    static constexpr const char* kNames[] = {"add", "sub", "mul", "div", "rem", "min", "max", "and", "or", "shl", "shr"};
    return kNames[static_cast<int>(op)];
}

const char* compareName(ComparePredicate p) {
    static constexpr const char* kNames[] = {"lt", "le", "gt", "ge", "eq", "ne"};
    return kNames[static_cast<int>(p)];
}

/// "i3" for loop variable 3, "l0" for local 0.
std::string slotName(char prefix, uint32_t slot) {
    std::string name(1, prefix);
    name += std::to_string(slot);
    return name;
}

std::string exprText(const Kernel& k, uint32_t id) {
    const Expr& e = k.exprs.at(id);
    switch (e.kind) {
        case ExprKind::Int: return std::to_string(e.intValue) + (e.type == Scalar::I64 ? "" : std::string(":") + scalarName(e.type));
        case ExprKind::Float: {
            std::string text = std::to_string(e.floatValue);
            return text.append(e.type == Scalar::F64 ? "d" : "f");
        }
        case ExprKind::LoopVar: return slotName('i', e.slot);
        case ExprKind::Local: return slotName('l', e.slot);
        case ExprKind::Load: return "%" + k.buffers.at(e.slot).name + "[" + exprText(k, e.a) + "]";
        case ExprKind::Binary:
            return std::string(binaryName(e.binary)) + "(" + exprText(k, e.a) + ", " + exprText(k, e.b) + ")";
        case ExprKind::Compare:
            return std::string(compareName(e.compare)) + "(" + exprText(k, e.a) + ", " + exprText(k, e.b) + ")";
        case ExprKind::Select:
            return "select(" + exprText(k, e.a) + ", " + exprText(k, e.b) + ", " + exprText(k, e.c) + ")";
        case ExprKind::Cast: return std::string(scalarName(e.type)) + "(" + exprText(k, e.a) + ")";
        case ExprKind::Round: return "round(" + exprText(k, e.a) + ")";
        case ExprKind::Math: return std::string(mathName(e.math)) + "(" + exprText(k, e.a) + ")";
    }
    return "?";
}

void printBody(const Kernel& k, const std::vector<Stmt>& body, const std::string& indent, std::string& out) {
    for (const Stmt& s : body) {
        switch (s.kind) {
            case StmtKind::For:
                out += indent + "for " + slotName('i', s.slot) + " in 0.." +
                       (s.runTimeBound ? slotName('l', s.a) + " (counted as " + std::to_string(s.extent) + ")"
                                       : std::to_string(s.extent)) +
                       " {\n";
                printBody(k, s.body, indent + "  ", out);
                out += indent + "}\n";
                break;
            case StmtKind::Assign:
                out += indent + slotName('l', s.slot) + " = " + exprText(k, s.a) + "\n";
                break;
            case StmtKind::Store:
                out += indent + "%" + k.buffers.at(s.slot).name + "[" + exprText(k, s.a) + "] = " + exprText(k, s.b) + "\n";
                break;
            case StmtKind::If:
                out += indent + "if " + exprText(k, s.a) + " {\n";
                printBody(k, s.body, indent + "  ", out);
                out += indent + "}\n";
                break;
            case StmtKind::Fail: out += indent + "fail " + std::to_string(s.slot) + "\n"; break;
        }
    }
}

}  // namespace

uint64_t operationCount(const Kernel& kernel) { return statementOperations(kernel, kernel.body); }

std::string printKernel(const Kernel& kernel) {
    std::string out = "cpu kernel @" + kernel.name + "(", scratch;
    bool first = true;
    for (const Buffer& b : kernel.buffers) {
        std::string size = "[";
        size += std::to_string(b.elements);
        size += ']';
        if (b.scratch) {
            scratch += "  scratch %" + b.name + ": " + scalarName(*b.scratch) + size + "\n";
            continue;
        }
        out += (first ? "" : ", ") + std::string(b.output ? "out " : "in ") + "%" + b.name + ": " +
               std::string(dtypeName(b.dtype)) + size;
        first = false;
    }
    out += ") {  // " + std::to_string(operationCount(kernel)) + " operations\n" + scratch;
    for (size_t i = 0; i < kernel.locals.size(); ++i) {
        out += "  local " + slotName('l', static_cast<uint32_t>(i)) + ": " + scalarName(kernel.locals[i]) + "\n";
    }
    printBody(kernel, kernel.body, "  ", out);
    out += "}\n";
    return out;
}

}  // namespace npusim::compiler::cpu
