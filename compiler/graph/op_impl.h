// Internal to the op table: each op's type function and reference semantics (declared from
// ops.def, defined in the op implementation files), and the helpers they share. Only
// op_table.cpp, constant_eval.cpp and the op implementation files include this.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "compiler/graph/function_body.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/strided_copy.h"

namespace npusim::compiler::ops {

/// Checks the node's input and output counts against its table entry, that every value id is in
/// range and that every required input is present.
void checkArity(const Graph& graph, const Node& node);
/// The value of input `index`; nullptr when that optional input is absent.
const Value* optionalInput(const Graph& graph, const Node& node, size_t index);
/// Throws "<operand> is <dtype>; <Op> supports <allowed>" unless `dtype` is allowed.
void requireDType(const Node& node, std::string_view operand, DType dtype,
                  std::initializer_list<DType> allowed);
/// Throws "<aName> is <a> but <bName> is <b>; both must have the same dtype" unless a == b.
void requireSameDType(const Node& node, std::string_view aName, DType a, std::string_view bName, DType b);
/// Records the dtype and shape of the node's single output.
void setOutput(Graph& graph, const Node& node, DType dtype, Shape shape);

// Every op's type function and reference semantics, as ops.def names them (ops that share a
// type function declare it once per op: a repeated declaration is the same function).
#define NPUSIM_OP(kind, name, minInputs, maxInputs, minOutputs, maxOutputs, infer, interpret, traits) \
    void infer(Graph& graph, const Node& node);                                                      \
    std::vector<Tensor> interpret(const Node& node, std::span<const Tensor* const> inputs);
#define NPUSIM_FUNCTION_OP(kind, name, minInputs, maxInputs, minOutputs, maxOutputs, infer, interpret, traits, \
                           expand)                                                                       \
    NPUSIM_OP(kind, name, minInputs, maxInputs, minOutputs, maxOutputs, infer, interpret, traits)            \
    void expand(const Node& node, FunctionBody& body);
#include "compiler/graph/ops.def"

/// Shape's and Size's outputs, from the input shape alone (the frontend folds both).
Tensor shapeTensor(const Node& node, const Shape& input);
Tensor sizeTensor(const Shape& input);
/// EyeLike's output of `dtype` for an input of `shape` (matrix_ops.cpp).
Tensor eyeLikeTensor(const Node& node, DType dtype, const Shape& shape);
/// The check of GatherElements' and ScatterElements' indices (their axis is gatherAxis): the
/// rank of data, no dim larger than data's outside the axis.
void checkElementIndices(const Node& node, const Shape& data, const Shape& indices);

// Data movement as strided copies (compiler/graph/strided_copy.h), from the same layout logic
// as the reference semantics.
std::vector<StridedCopy> transposeCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> blockPermuteCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> concatCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> splitCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> sliceCopies(const Graph& graph, const Node& node);
/// nullopt when the indices are not constant.
std::optional<std::vector<StridedCopy>> gatherCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> expandCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> tileCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> padCopies(const Graph& graph, const Node& node);
/// nullopt when k is not constant.
std::optional<std::vector<StridedCopy>> triluCopies(const Graph& graph, const Node& node);
std::vector<StridedCopy> im2colCopies(const Graph& graph, const Node& node);

}  // namespace npusim::compiler::ops
