// The op table (ops.def: one entry per OpKind), op lookup, traits, located diagnostics and shared
// operand checks.
#include "compiler/graph/op_table.h"

#include <array>

#include "arch/error.h"
#include "arch/isa.h"
#include "compiler/graph/op_impl.h"

namespace npusim::compiler {
namespace {

constexpr std::array kOps = {
#define NPUSIM_OP(kind, name, minInputs, maxInputs, minOutputs, maxOutputs, infer, interpret, traits) \
    OpInfo{OpKind::kind, name, minInputs, maxInputs, minOutputs, maxOutputs, ops::infer, ops::interpret, traits, nullptr},
#define NPUSIM_FUNCTION_OP(kind, name, minInputs, maxInputs, minOutputs, maxOutputs, infer, interpret, traits, expand) \
    OpInfo{OpKind::kind, name, minInputs, maxInputs, minOutputs, maxOutputs, ops::infer, ops::interpret, traits, ops::expand},
#include "compiler/graph/ops.def"
};

/// "1 input", "3 inputs".
std::string counted(int count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

const OpInfo& opInfo(OpKind kind) {
    return kOps.at(static_cast<size_t>(kind));
}

bool hasTrait(OpKind kind, OpTrait trait) { return (opInfo(kind).traits & trait) != 0; }

std::optional<isa::VectorOp> vectorFunction(OpKind kind) {
    switch (kind) {
#define NPUSIM_OP(...)
#define NPUSIM_VECTOR_FUNCTION(kind, function) \
    case OpKind::kind: return isa::VectorOp::function;
#include "compiler/graph/ops.def"
        default: return std::nullopt;
    }
}

bool isInternalOp(OpKind kind) { return opInfo(kind).name.starts_with("npusim."); }

std::optional<OpKind> findOpKind(std::string_view onnxOpType) {
    for (const OpInfo& info : kOps) {
        if (info.name == onnxOpType && !isInternalOp(info.kind)) return info.kind;
    }
    return std::nullopt;
}

std::optional<OpKind> findIrOpKind(std::string_view name) {
    for (const OpInfo& info : kOps) {
        if (info.name == name) return info.kind;
    }
    return std::nullopt;
}

std::string supportedOpList() {
    std::string list;
    for (const OpInfo& info : kOps) {
        if (isInternalOp(info.kind)) continue;
        if (!list.empty()) list += ", ";
        list += info.name;
    }
    return list;
}

std::span<const int> shapeOperands(OpKind kind) {
    static constexpr int kFirst[] = {0}, kSecond[] = {1}, kFirstThree[] = {0, 1, 2}, kSlice[] = {1, 2, 3, 4},
                         kResize[] = {1, 2, 3}, kPad[] = {1, 3},
                         kThird[] = {2}, kFifth[] = {4}, kStft[] = {1, 3}, kFirstFive[] = {0, 1, 2, 3, 4};
    switch (kind) {
        case OpKind::Resize: return kResize;  // opset 10: scales; 11 on: roi, scales, sizes
        case OpKind::DFT:                     // dft_length
        case OpKind::Upsample:                // scales, from opset 9
        case OpKind::ReduceSum:               // axes, from opset 13
        case OpKind::Reshape:
        case OpKind::Squeeze:    // axes, from opset 13
        case OpKind::Unsqueeze:  // axes, from opset 13
        case OpKind::Split:      // split, from opset 13
        case OpKind::Expand:
        case OpKind::Tile:
        case OpKind::Trilu:                   // k: which elements are kept
        case OpKind::TopK:                    // K
        case OpKind::OneHot: return kSecond;  // OneHot: depth
        case OpKind::MaxUnpool: return kThird;  // output_shape
        case OpKind::STFT: return kStft;        // frame_step, frame_length
        case OpKind::MelWeightMatrix: return kFirstFive;  // all: they decide where the filters lie
        case OpKind::Slice: return kSlice;
        case OpKind::Pad: return kPad;  // pads, and axes in opset 18
        case OpKind::HannWindow:  // size
        case OpKind::HammingWindow:
        case OpKind::BlackmanWindow:
        case OpKind::ConstantOfShape: return kFirst;
        case OpKind::Range: return kFirstThree;
        case OpKind::LSTM:
        case OpKind::GRU:
        case OpKind::RNN: return kFifth;  // sequence_lens: the steps run
        default: return {};
    }
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
            info.minInputs == info.maxInputs ? counted(info.minInputs, "input")
            : info.maxInputs == kUnbounded   ? "at least " + counted(info.minInputs, "input")
                                             : std::to_string(info.minInputs) + " to " +
                                                 counted(info.maxInputs, "input");
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

void requireSameDType(const Node& node, std::string_view aName, DType a, std::string_view bName, DType b) {
    if (a != b) {
        opError(node, std::string(aName) + " is " + std::string(dtypeName(a)) + " but " + std::string(bName) + " is " +
                          std::string(dtypeName(b)) + "; both must have the same dtype");
    }
}

void setOutput(Graph& graph, const Node& node, DType dtype, Shape shape) {
    Value& output = graph.value(node.outputs.at(0));
    output.dtype = dtype;
    output.shape = std::move(shape);
}

}  // namespace ops
}  // namespace npusim::compiler
