// Relu: Y = max(X, 0) elementwise.
#include <algorithm>

#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

template <class T>
void relu(std::span<const T> in, std::span<T> out) {
    std::transform(in.begin(), in.end(), out.begin(), [](T x) { return std::max(x, T{0}); });
}

}  // namespace

void inferRelu(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, {DType::Fp32, DType::Int32, DType::Int8});
    setOutput(graph, node, x.dtype, x.shape);
}

std::vector<Tensor> interpretRelu(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    Tensor out = Tensor::zeros(x.dtype, x.shape);
    switch (x.dtype) {
        case DType::Fp32:
            relu(x.as<float>(), out.as<float>());
            break;
        case DType::Int32:
            relu(x.as<int32_t>(), out.as<int32_t>());
            break;
        case DType::Int8:
            relu(x.as<int8_t>(), out.as<int8_t>());
            break;
        default:
            opError(node, "X is " + std::string(dtypeName(x.dtype)) +
                              "; Relu supports fp32, int32, int8");
    }
    return {std::move(out)};
}

}  // namespace npusim::compiler::ops
