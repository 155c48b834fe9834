// The graph IR's op table: for each OpKind its ONNX name, arity, type/shape function,
// verifier and reference semantics. Adding an op means adding one entry here.
#pragma once

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler {

/// OpInfo::maxInputs of a variadic op (Sum, Concat...): no upper bound.
inline constexpr int kUnbounded = std::numeric_limits<int>::max();

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
};

const OpInfo& opInfo(OpKind kind);
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
