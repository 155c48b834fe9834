// Matrix ops: EyeLike (ones on diagonal k of a matrix shaped like the input, which it reads only
// the shape of: it folds to a constant).
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/onnx_element_types.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// The dtype attribute (an ONNX element type), else the input's.
DType eyeLikeDType(const Node& node, DType input) {
    if (!node.attributes.contains("dtype")) return input;
    const int64_t code = node.intAttr("dtype", 0);
    const std::optional<DType> named = dtypeOfOnnxElementType(code);
    if (!named) opError(node, "dtype " + onnxElementTypeName(code) + " is not one npusim supports");
    return *named;
}

}  // namespace

void inferEyeLike(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    if (x.shape.size() != 2) opError(node, "input must be a matrix (rank 2), got " + shapeString(x.shape));
    setOutput(graph, node, eyeLikeDType(node, x.dtype), x.shape);
}

Tensor eyeLikeTensor(const Node& node, DType dtype, const Shape& shape) {
    const int64_t k = node.intAttr("k", 0);
    std::vector<int64_t> ones(static_cast<size_t>(elementCount(shape)), 0);
    for (int64_t row = 0; row < shape[0]; ++row) {
        if (row + k >= 0 && row + k < shape[1]) ones[row * shape[1] + row + k] = 1;
    }
    if (!isFloat(dtype)) return integerTensor(dtype, shape, ones);
    return floatTensor(dtype, shape, std::vector<double>(ones.begin(), ones.end()));
}

std::vector<Tensor> interpretEyeLike(const Node& node, std::span<const Tensor* const> inputs) {
    return {eyeLikeTensor(node, eyeLikeDType(node, inputs[0]->dtype), inputs[0]->shape)};
}

}  // namespace npusim::compiler::ops
