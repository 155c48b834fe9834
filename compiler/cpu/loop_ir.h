// Loop IR of CPU segments: an op the NPU cannot run becomes one kernel, a nest of counted
// loops over scalar loads, arithmetic and stores on its tensors (the kernel's buffers). The
// kernel is what the LLVM emitter translates and what the host's cost is counted from. A
// kernel returns 0, or stops early with a KernelStatus when its inputs break the op's rules.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arch/dtype.h"

namespace npusim::compiler::cpu {

/// Types of scalar values: int64 for loop variables and indices, int32 for narrower integers
/// (int8, uint8, int32 elements load widened), fp32 (fp16 and bf16 elements load widened and
/// store rounded to nearest even), i1 for conditions, and f64 for sums and functions a kernel
/// computes in double, as the reference does (no buffer holds f64: cast to f32 to store).
enum class Scalar : uint8_t { I1, I32, I64, F32, F64 };

/// True for F32 and F64.
constexpr bool isReal(Scalar type) { return type == Scalar::F32 || type == Scalar::F64; }

/// Round: a float rounded to the nearest integer, halves to even. Math: a MathFn of a float.
enum class ExprKind : uint8_t { Int, Float, LoopVar, Local, Load, Binary, Compare, Select, Cast, Round, Math };
/// Functions of a float, of its type: Floor and Ceil exact, IsNaN an i1, the others the C
/// library's double functions (an f32 is widened and the result rounded to f32 once).
enum class MathFn : uint8_t { Floor, Ceil, IsNaN, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Expm1, Exp, Log };
/// Shl and Shr (logical) shift integers by an amount below their width.
enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Rem, Min, Max, And, Or, Shl, Shr };
/// Comparisons: signed for integers, ordered for floats.
enum class ComparePredicate : uint8_t { Lt, Le, Gt, Ge, Eq, Ne };

struct Expr {
    ExprKind kind = ExprKind::Int;
    Scalar type = Scalar::I64;
    int64_t intValue = 0;
    double floatValue = 0;
    uint32_t slot = 0;  ///< the loop variable, local or buffer
    BinaryOp binary = BinaryOp::Add;
    ComparePredicate compare = ComparePredicate::Eq;
    MathFn math = MathFn::Floor;
    uint32_t a = 0, b = 0, c = 0;  ///< operands (Load: a is the element index)
};

/// Fail: the kernel stops and returns status `slot`.
enum class StmtKind : uint8_t { For, Assign, Store, If, Fail };

/// What a kernel returns.
enum class KernelStatus : int64_t { Ok = 0, IndexOutOfRange = 1, OutOfMemory = 2 };

struct Stmt {
    StmtKind kind = StmtKind::For;
    uint32_t slot = 0;     ///< For: its loop variable; Assign: the local; Store: the buffer
    int64_t extent = 0;    ///< For: the variable runs over [0, extent) (a run-time bound: what its cost counts)
    bool runTimeBound = false;  ///< For: the variable runs up to the value of local a instead
    uint32_t a = 0, b = 0; ///< Assign: value a; Store: index a, value b; If: condition a
    std::vector<Stmt> body;
};

/// A tensor the kernel reads or writes, in argument order; or scratch memory of the kernel's
/// own (no argument), allocated when it starts and freed when it returns, holding `elements`
/// values of a register type.
struct Buffer {
    std::string name;
    DType dtype = DType::Fp32;  ///< of an argument's elements
    int64_t elements = 0;
    bool output = false;
    std::optional<Scalar> scratch;  ///< set for scratch memory: the type of its values
};

struct Kernel {
    std::string name;  ///< the symbol the JIT exports
    std::vector<Buffer> buffers;
    std::vector<Scalar> locals;
    uint32_t loopVars = 0;
    std::vector<Expr> exprs;
    std::vector<Stmt> body;
};

/// The register type a buffer's elements load as.
Scalar loadedType(DType dtype);
/// Whether kernels can read and write elements of `dtype`.
bool kernelDType(DType dtype);

/// Builds a kernel statement by statement; loops and conditions take the code of their body.
class KernelBuilder {
public:
    struct Value {
        uint32_t id = 0;
    };

    explicit KernelBuilder(std::string name);
    // The builder points into its own kernel: it stays where it was made.
    KernelBuilder(const KernelBuilder&) = delete;
    KernelBuilder& operator=(const KernelBuilder&) = delete;

    uint32_t buffer(std::string name, DType dtype, int64_t elements, bool output);
    /// Scratch memory of `elements` values of `type` (not i1); its contents start undefined.
    uint32_t scratch(std::string name, Scalar type, int64_t elements);

    Value integer(int64_t value, Scalar type = Scalar::I64);
    Value real(double value, Scalar type = Scalar::F32);
    Value load(uint32_t buffer, Value index);
    Value binary(BinaryOp op, Value a, Value b);
    Value compare(ComparePredicate predicate, Value a, Value b);
    Value select(Value condition, Value ifTrue, Value ifFalse);
    /// Integer widths sign-extend or truncate; to i1 tests for non-zero; f32 and f64 widen or
    /// round to nearest even. A float outside the target integer's range converts to an
    /// undefined value: clamp it first.
    Value cast(Value value, Scalar type);
    Value round(Value value);
    Value math(MathFn function, Value value);
    Value add(Value a, Value b) { return binary(BinaryOp::Add, a, b); }
    Value mul(Value a, Value b) { return binary(BinaryOp::Mul, a, b); }
    /// a * scale + offset on int64 indices.
    Value affine(Value a, int64_t scale, Value offset);

    /// A local variable set to `initial`; read it with get, change it with set.
    uint32_t local(Value initial);
    Value get(uint32_t local);
    void set(uint32_t local, Value value);
    void store(uint32_t buffer, Value index, Value value);

    /// for (i = 0; i < extent; ++i) body(i)
    void loop(int64_t extent, const std::function<void(Value)>& body);
    /// for (i = 0; i < count; ++i) body(i), count an int64 computed at run time (none when it is
    /// negative); the operation count takes `countedExtent` iterations.
    void loopUpTo(Value count, int64_t countedExtent, const std::function<void(Value)>& body);
    /// if (condition) body()
    void when(Value condition, const std::function<void()>& body);
    /// Stops the kernel, returning `status`.
    void fail(KernelStatus status);

    Kernel finish();

private:
    Value push(Expr expr);
    void forLoop(Stmt loop, const std::function<void(Value)>& body);
    void emit(Stmt stmt);
    Scalar typeOf(Value value) const { return kernel_.exprs.at(value.id).type; }
    /// The register type of a buffer's loads and stores.
    Scalar elementType(uint32_t buffer) const;
    bool isInteger(Value value, int64_t constant) const;

    Kernel kernel_;
    std::vector<std::vector<Stmt>*> open_;  ///< the statement lists being filled, innermost last
};

/// How many scalar operations a run of the kernel executes (loads, stores, arithmetic,
/// compares, loop steps): the host CPU's cost of the kernel.
uint64_t operationCount(const Kernel& kernel);

/// Text form (--emit tile shows it with the op): the buffers, then the loop nest.
std::string printKernel(const Kernel& kernel);

}  // namespace npusim::compiler::cpu
