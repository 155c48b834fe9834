// Identity and Dropout, which pass their input through: Dropout runs in inference mode, where it
// drops nothing and its optional mask is all true.
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

[[noreturn]] void trainingModeError(const Node& node) {
    opError(node,
            "training_mode is true; npusim runs Dropout in inference mode only (training "
            "drops random elements)");
}

}  // namespace

void inferIdentity(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& input = graph.value(node.inputs[0]);
    setOutput(graph, node, input.dtype, input.shape);
}

std::vector<Tensor> interpretIdentity(const Node&, std::span<const Tensor* const> inputs) {
    return {*inputs[0]};
}

void inferDropout(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& data = graph.value(node.inputs[0]);
    requireDType(node, "data", data.dtype, kFloatDTypes);
    if (const Value* ratio = optionalInput(graph, node, 1)) {
        requireDType(node, "ratio", ratio->dtype, kFloatDTypes);
        if (!ratio->shape.empty()) {
            opError(node, "ratio must be a scalar, got " + shapeString(ratio->shape));
        }
    }
    if (const Value* trainingMode = optionalInput(graph, node, 2)) {
        requireDType(node, "training_mode", trainingMode->dtype, {DType::Bool});
        if (!trainingMode->shape.empty()) {
            opError(node,
                    "training_mode must be a scalar, got " + shapeString(trainingMode->shape));
        }
        if (trainingMode->constant && trainingMode->constant->valueAt(0) != 0) {
            trainingModeError(node);
        }
    }
    if (node.outputs.size() > 1 && graph.opset < 10) {
        opError(node,
                "the mask output before opset 10 has the data's dtype; npusim gives "
                "Dropout's mask as bool (opset 10 on)");
    }
    setOutput(graph, node, data.dtype, data.shape);
    if (node.outputs.size() > 1) {
        Value& mask = graph.value(node.outputs[1]);
        mask.dtype = DType::Bool;
        mask.shape = data.shape;
    }
}

std::vector<Tensor> interpretDropout(const Node& node, std::span<const Tensor* const> inputs) {
    if (inputs.size() > 2 && inputs[2] && inputs[2]->valueAt(0) != 0) trainingModeError(node);
    std::vector<Tensor> outputs{*inputs[0]};
    if (node.outputs.size() > 1) {
        const std::vector<int64_t> allTrue(static_cast<size_t>(inputs[0]->elementCount()), 1);
        outputs.push_back(integerTensor(DType::Bool, inputs[0]->shape, allTrue));
    }
    return outputs;
}

}  // namespace npusim::compiler::ops
