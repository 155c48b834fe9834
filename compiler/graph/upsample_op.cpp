// Upsample (opsets 7 to 9; deprecated by Resize in 10): Resize's opset-10 form, whose output
// axis is floor(input * scale) long and samples asymmetric coordinates (nearest rounds down),
// with mode nearest or linear. Opset 9 gives the scales as input 1, opset 7 as an attribute.
#include <cmath>
#include <string>

#include "compiler/graph/op_attributes.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {

std::optional<Tensor> upsampleScalesAttribute(const Node& node) {
    const auto it = node.attributes.find("scales");
    if (it == node.attributes.end()) return std::nullopt;
    const auto* values = std::get_if<std::vector<double>>(&it->second);
    if (!values) opError(node, "attribute 'scales' must be a list of floats");
    Tensor scales = Tensor::zeros(DType::Fp32, {static_cast<int64_t>(values->size())});
    for (size_t i = 0; i < values->size(); ++i) scales.as<float>()[i] = static_cast<float>((*values)[i]);
    return scales;
}

void inferUpsample(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const std::string mode = stringAttr(node, "mode", "nearest");
    if (mode != "nearest" && mode != "linear") opError(node, "mode '" + mode + "' is not one of nearest, linear");
    const std::optional<Tensor> scales = upsampleScalesAttribute(node);
    if (node.inputs.size() > 1) {
        if (scales) opError(node, "the scales are given both as input 1 and as an attribute");
        inferResize(graph, node);
        return;
    }
    if (!scales) opError(node, "the scales are missing (an attribute in opset 7, input 1 from opset 9)");
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, {DType::Fp32});
    if (scales->elementCount() != static_cast<int64_t>(x.shape.size())) {
        opError(node, "scales has " + std::to_string(scales->elementCount()) + " values for X of rank " +
                          std::to_string(x.shape.size()));
    }
    Shape output;
    for (size_t axis = 0; axis < x.shape.size(); ++axis) {
        output.push_back(static_cast<int64_t>(std::floor(static_cast<float>(x.shape[axis]) * scales->as<float>()[axis])));
    }
    setOutput(graph, node, x.dtype, output);
}

std::vector<Tensor> interpretUpsample(const Node& node, std::span<const Tensor* const> inputs) {
    if (inputs.size() > 1) return interpretResize(node, inputs);
    const std::optional<Tensor> scales = upsampleScalesAttribute(node);
    if (!scales) opError(node, "the scales are missing (an attribute in opset 7, input 1 from opset 9)");
    const Tensor* operands[] = {inputs[0], &*scales};
    return interpretResize(node, operands);
}

}  // namespace npusim::compiler::ops
