// The op table (one entry per OpKind), op lookup, located diagnostics and shared operand checks.
#include "compiler/graph/op_table.h"

#include <array>

#include "arch/error.h"
#include "compiler/graph/op_impl.h"

namespace npusim::compiler {
namespace {

constexpr std::array kOps = {
    OpInfo{OpKind::MatMul, "MatMul", 2, 2, 1, 1, ops::inferMatMul, ops::interpretMatMul},
    OpInfo{OpKind::Gemm, "Gemm", 2, 3, 1, 1, ops::inferGemm, ops::interpretGemm},
    OpInfo{OpKind::MatMulInteger, "MatMulInteger", 2, 4, 1, 1, ops::inferMatMulInteger,
           ops::interpretMatMulInteger},
    OpInfo{OpKind::Relu, "Relu", 1, 1, 1, 1, ops::inferRelu, ops::interpretRelu},
    // Elementwise, activations, reductions and normalisation.
    // Convolution, pooling, resize and quantisation.
    // Shape and data movement.
};

constexpr bool tableFollowsEnumOrder() {
    for (size_t i = 0; i < kOps.size(); ++i) {
        if (static_cast<size_t>(kOps[i].kind) != i) return false;
    }
    return true;
}
static_assert(tableFollowsEnumOrder(), "kOps must list every OpKind in enum order");

/// "1 input", "3 inputs".
std::string counted(int count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

const OpInfo& opInfo(OpKind kind) {
    return kOps.at(static_cast<size_t>(kind));
}

std::optional<OpKind> findOpKind(std::string_view onnxOpType) {
    for (const OpInfo& info : kOps) {
        if (info.name == onnxOpType) return info.kind;
    }
    return std::nullopt;
}

std::string supportedOpList() {
    std::string list;
    for (const OpInfo& info : kOps) {
        if (!list.empty()) list += ", ";
        list += info.name;
    }
    return list;
}

std::string opDiagnostic(const Node& node, const std::string& message) {
    return "op '" + node.name + "' (" + std::string(opInfo(node.kind).name) + "): " + message;
}

void opError(const Node& node, const std::string& message) {
    throw InputError(opDiagnostic(node, message));
}

namespace ops {

void checkArity(const Graph& graph, const Node& node) {
    const OpInfo& info = opInfo(node.kind);
    const auto inputCount = static_cast<int>(node.inputs.size());
    if (inputCount < info.minInputs || inputCount > info.maxInputs) {
        const std::string expected =
            info.minInputs == info.maxInputs
                ? counted(info.minInputs, "input")
                : std::to_string(info.minInputs) + " to " + counted(info.maxInputs, "input");
        opError(node, "expects " + expected + ", got " + std::to_string(inputCount));
    }
    const auto outputCount = static_cast<int>(node.outputs.size());
    if (outputCount < info.minOutputs || outputCount > info.maxOutputs) {
        const std::string expected =
            info.minOutputs == info.maxOutputs
                ? counted(info.minOutputs, "output")
                : std::to_string(info.minOutputs) + " to " + counted(info.maxOutputs, "output");
        opError(node, "expects " + expected + ", got " + std::to_string(outputCount));
    }
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        const ValueId id = node.inputs[i];
        if (id == kNoValue) {
            if (static_cast<int>(i) < info.minInputs) {
                opError(node, "required input " + std::to_string(i) + " is absent");
            }
        } else if (id >= graph.values.size()) {
            opError(node, "input " + std::to_string(i) + " refers to value id " +
                              std::to_string(id) + ", but the graph has " +
                              std::to_string(graph.values.size()) + " values");
        }
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (node.outputs[i] >= graph.values.size()) {
            opError(node, "output " + std::to_string(i) + " refers to value id " +
                              std::to_string(node.outputs[i]) + ", but the graph has " +
                              std::to_string(graph.values.size()) + " values");
        }
    }
}

const Value* optionalInput(const Graph& graph, const Node& node, size_t index) {
    if (index >= node.inputs.size() || node.inputs[index] == kNoValue) return nullptr;
    return &graph.value(node.inputs[index]);
}

void requireDType(const Node& node, std::string_view operand, DType dtype,
                  std::initializer_list<DType> allowed) {
    std::string list;
    for (DType candidate : allowed) {
        if (candidate == dtype) return;
        if (!list.empty()) list += ", ";
        list += dtypeName(candidate);
    }
    opError(node, std::string(operand) + " is " + std::string(dtypeName(dtype)) + "; " +
                      std::string(opInfo(node.kind).name) + " supports " + list);
}

void setOutput(Graph& graph, const Node& node, DType dtype, Shape shape) {
    Value& output = graph.value(node.outputs.at(0));
    output.dtype = dtype;
    output.shape = std::move(shape);
}

}  // namespace ops
}  // namespace npusim::compiler
