// Internal to the op table: each op's type function and reference semantics, and the operand
// checks they share. Only op_table.cpp and the op implementation files include this.
#pragma once

#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler::ops {

/// Checks the node's input and output counts against its table entry, that every value id is in
/// range and that every required input is present.
void checkArity(const Graph& graph, const Node& node);
/// The value of input `index`; nullptr when that optional input is absent.
const Value* optionalInput(const Graph& graph, const Node& node, size_t index);
/// Throws "<operand> is <dtype>; <Op> supports <allowed>" unless `dtype` is allowed.
void requireDType(const Node& node, std::string_view operand, DType dtype,
                  std::initializer_list<DType> allowed);
/// Records the dtype and shape of the node's single output.
void setOutput(Graph& graph, const Node& node, DType dtype, Shape shape);

void inferMatMul(Graph& graph, const Node& node);
std::vector<Tensor> interpretMatMul(const Node& node, std::span<const Tensor* const> inputs);

void inferMatMulInteger(Graph& graph, const Node& node);
std::vector<Tensor> interpretMatMulInteger(const Node& node, std::span<const Tensor* const> inputs);

void inferGemm(Graph& graph, const Node& node);
std::vector<Tensor> interpretGemm(const Node& node, std::span<const Tensor* const> inputs);

void inferRelu(Graph& graph, const Node& node);
std::vector<Tensor> interpretRelu(const Node& node, std::span<const Tensor* const> inputs);

}  // namespace npusim::compiler::ops
