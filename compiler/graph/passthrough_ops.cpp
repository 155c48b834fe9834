// Identity and Dropout, which pass their input through: Dropout in inference mode drops nothing
// and its optional mask is all true. In training mode (its training_mode input true) it keeps the
// elements whose draw u (compiler/graph/random_draws.h, rounded to the ratio's dtype) is at least
// the ratio, scaled by 1 / (1 - ratio), and its mask says which.
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/random_draws.h"

namespace npusim::compiler::ops {

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
    const Tensor& x = *inputs[0];
    std::vector<int64_t> mask(static_cast<size_t>(x.elementCount()), 1);
    std::vector<Tensor> outputs{x};
    if (inputs.size() > 2 && inputs[2] && inputs[2]->valueAt(0) != 0) {
        const DType ratioType = inputs.size() > 1 && inputs[1] ? inputs[1]->dtype : x.dtype;
        const double ratio = inputs.size() > 1 && inputs[1] ? inputs[1]->valueAt(0) : 0.5;
        RandomDraws random = RandomDraws::forNode(node);
        std::vector<double> draws(mask.size());
        for (double& u : draws) u = random.uniform();
        const std::vector<double> rounded = floatValues(floatTensor(ratioType, x.shape, draws));
        std::vector<double> y = floatValues(x);
        for (size_t i = 0; i < y.size(); ++i) {
            mask[i] = rounded[i] >= ratio ? 1 : 0;
            y[i] = static_cast<double>(mask[i]) * y[i] / (1.0 - ratio);
        }
        outputs[0] = floatTensor(x.dtype, x.shape, y);
    }
    if (node.outputs.size() > 1) outputs.push_back(integerTensor(DType::Bool, x.shape, mask));
    return outputs;
}

}  // namespace npusim::compiler::ops
