// MaxUnpool: the inverse of a MaxPool with Indices. Each input value goes to the flat position
// its index names in the unpooled tensor [N, C, (in - 1) * stride + kernel - pads] (the rest
// stay 0); an output_shape input larger than that (opset 11) pads the result with zeros at the
// end of each dim, as ONNX's tests hold.
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_attributes.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// The output shape: output_shape when given (no smaller than the unpooled shape), else that.
Shape unpoolOutputShape(const Node& node, const Shape& unpooled, const std::optional<std::vector<int64_t>>& given) {
    if (!given) return unpooled;
    const Shape shape(given->begin(), given->end());
    bool fits = shape.size() == unpooled.size();
    for (size_t d = 0; fits && d < shape.size(); ++d) fits = shape[d] >= unpooled[d] && (d >= 2 || shape[d] == unpooled[d]);
    if (!fits) {
        opError(node, "output_shape " + shapeString(shape) + " must keep N and C and hold the unpooled shape " +
                          shapeString(unpooled));
    }
    return shape;
}

}  // namespace

Shape maxUnpoolShape(const Node& node, const Shape& x) {
    const size_t spatial = x.size() < 3 ? 0 : x.size() - 2;
    const std::vector<int64_t> kernel = intListAttr(node, "kernel_shape");
    const std::vector<int64_t> strides = intListAttr(node, "strides", std::vector<int64_t>(spatial, 1));
    const std::vector<int64_t> pads = intListAttr(node, "pads", std::vector<int64_t>(2 * spatial, 0));
    if (spatial == 0 || kernel.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial) {
        opError(node, "X " + shapeString(x) + " needs kernel_shape and strides of one value per spatial dim and pads of two");
    }
    Shape unpooled = {x[0], x[1]};
    for (size_t d = 0; d < spatial; ++d) {
        unpooled.push_back((x[d + 2] - 1) * strides[d] + kernel[d] - pads[d] - pads[d + spatial]);
        if (unpooled.back() < 1) opError(node, "the unpooled shape " + shapeString(unpooled) + " is empty");
    }
    return unpooled;
}

void inferMaxUnpool(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& indices = graph.value(node.inputs[1]);
    requireDType(node, "X", x.dtype, kFloatDTypes);
    requireDType(node, "I", indices.dtype, {DType::Int64});
    if (indices.shape != x.shape) {
        opError(node, "I " + shapeString(indices.shape) + " must have the shape of X " + shapeString(x.shape));
    }
    std::optional<std::vector<int64_t>> given;
    if (optionalInput(graph, node, 2)) given = constantInts(graph, node, 2, "output_shape");
    setOutput(graph, node, x.dtype, unpoolOutputShape(node, maxUnpoolShape(node, x.shape), given));
}

std::vector<Tensor> interpretMaxUnpool(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Shape unpooled = maxUnpoolShape(node, x.shape);
    std::optional<std::vector<int64_t>> given;
    if (inputs.size() > 2 && inputs[2]) given = integerValues(*inputs[2]);
    const Shape shape = unpoolOutputShape(node, unpooled, given);
    const std::vector<int64_t> unpooledStrides = rowMajorStrides(unpooled), strides = rowMajorStrides(shape);
    const std::vector<int64_t> indices = integerValues(*inputs[1]);
    const std::vector<double> values = floatValues(x);
    std::vector<double> out(static_cast<size_t>(elementCount(shape)), 0.0);
    for (size_t i = 0; i < indices.size(); ++i) {
        const int64_t index = indices[i];
        int64_t target = 0;
        if (index < 0 || index >= elementCount(unpooled)) {
            opError(node, "index " + std::to_string(index) + " is outside the unpooled tensor " + shapeString(unpooled));
        }
        for (size_t d = 0; d < unpooled.size(); ++d) target += index / unpooledStrides[d] % unpooled[d] * strides[d];
        out[target] = values[i];
    }
    return {floatTensor(x.dtype, shape, out)};
}

}  // namespace npusim::compiler::ops
