// The graph IR's op table (ops.def): for each OpKind its ONNX name, arity, type/shape function,
// reference semantics, traits and, for a function op, its body. Adding an op means adding one
// line to ops.def and the functions it names.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/graph/function_body.h"
#include "compiler/graph/graph.h"

namespace npusim::isa {
enum class VectorOp : uint8_t;  // arch/isa.h
}

namespace npusim::compiler {

/// OpInfo::maxInputs of a variadic op (Sum, Concat...): no upper bound.
inline constexpr int kUnbounded = std::numeric_limits<int>::max();

/// What passes may assume of an op, instead of lists of their own.
enum OpTrait : uint32_t {
    /// Each output element is computed from the inputs' elements at its own position (inputs
    /// broadcast): positions stay apart, so padded positions never reach real ones.
    kElementwise = 1u << 0,
    /// Computes the same in any layout: a Reformat of its first operand can move below it when
    /// its other operands are scalars or reformatted alike (layout assignment).
    kLayoutFree = 1u << 1,
};

struct OpInfo {
    OpKind kind;
    std::string_view name;  ///< ONNX op type
    int minInputs, maxInputs;
    int minOutputs, maxOutputs;  ///< optional outputs (Dropout's mask) or a variable count (Split)
    /// Computes the output dtypes and shapes from the inputs' and writes them into the graph;
    /// throws InputError (via opError) when the inputs do not fit the op.
    void (*inferTypes)(Graph& graph, const Node& node);
    /// Reference semantics on host tensors; absent optional inputs are nullptr.
    std::vector<Tensor> (*interpret)(const Node& node, std::span<const Tensor* const> inputs);
    uint32_t traits;  ///< OpTrait bits
    /// A function op's body builder (function_body.h); nullptr for the rest.
    void (*expand)(const Node& node, FunctionBody& body);
};

const OpInfo& opInfo(OpKind kind);
bool hasTrait(OpKind kind, OpTrait trait);
/// The vector unit's function the op is (ops.def's vector functions): on its one operand, or
/// pairwise over its operands; nullopt when it is none.
std::optional<isa::VectorOp> vectorFunction(OpKind kind);
/// True for the compiler's own ops (named "npusim.*"), which graph passes make and ONNX
/// models cannot name.
bool isInternalOp(OpKind kind);
/// The op kind for an ONNX op type, nullopt when the graph IR does not know it.
std::optional<OpKind> findOpKind(std::string_view onnxOpType);
/// The op kind for a name as the IR text prints it (ONNX op types and "npusim.*" ops).
std::optional<OpKind> findIrOpKind(std::string_view name);
/// Every op type the graph IR knows, for messages ("supported: MatMul, Gemm, ...").
std::string supportedOpList();

/// The inputs of an op that decide its output shape (a Reshape's shape, a Slice's starts...) or
/// which elements it moves (Trilu's k): the compiler takes them only as constants.
std::span<const int> shapeOperands(OpKind kind);

/// A located diagnostic: "op 'gemm_0' (Gemm): <message>".
std::string opDiagnostic(const Node& node, const std::string& message);
/// Throws InputError with opDiagnostic(node, message).
[[noreturn]] void opError(const Node& node, const std::string& message);

}  // namespace npusim::compiler
