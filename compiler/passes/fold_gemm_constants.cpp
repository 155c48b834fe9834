// fold-gemm-constants: constant work of a Gemm done at compile time. A transposed constant
// operand is stored transposed; a constant 16-bit C is stored as fp32 (the accumulator adds an
// fp32 bias; the reference widens it exactly too); beta * C of a constant C is stored scaled.
// All keep the reference semantics: the folded values are exactly what the op would compute
// from them.
#include <cstring>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/passes/graph_pass.h"

namespace npusim::compiler {
namespace {

/// A new constant, named after the value `id` it is derived from with `suffix`.
ValueId addDerivedConstant(Graph& graph, ValueId id, const std::string& suffix, Tensor tensor) {
    Value value;
    value.name = graph.value(id).name + suffix;
    value.dtype = tensor.dtype;
    value.shape = tensor.shape;
    value.constant = std::move(tensor);
    return graph.addValue(std::move(value));
}

ValueId addTransposedConstant(Graph& graph, ValueId id) {
    const Tensor& tensor = *graph.value(id).constant;
    const int64_t rows = tensor.shape[0], cols = tensor.shape[1];
    const size_t elem = dtypeSize(tensor.dtype);
    Tensor transposed = Tensor::zeros(tensor.dtype, {cols, rows});
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
            std::memcpy(transposed.bytes.data() + (c * rows + r) * elem,
                        tensor.bytes.data() + (r * cols + c) * elem, elem);
        }
    }
    return addDerivedConstant(graph, id, ".T", std::move(transposed));
}

ValueId addWidenedConstant(Graph& graph, ValueId id) {
    const Value& source = graph.value(id);
    const std::vector<float> values = ops::widenedFloats(*source.constant);
    Tensor wide = Tensor::zeros(DType::Fp32, source.shape);
    std::memcpy(wide.bytes.data(), values.data(), wide.bytes.size());
    return addDerivedConstant(graph, id, ".fp32", std::move(wide));
}

ValueId addScaledConstant(Graph& graph, ValueId id, float scale) {
    Tensor scaled = *graph.value(id).constant;
    for (float& v : scaled.as<float>()) v *= scale;
    return addDerivedConstant(graph, id, ".scaled", std::move(scaled));
}

}  // namespace

void foldGemmConstants(Graph& graph) {
    for (Node& node : graph.nodes) {
        if (node.kind != OpKind::Gemm) continue;
        for (const auto& [index, attribute] : {std::pair<size_t, const char*>{0, "transA"}, {1, "transB"}}) {
            if (node.intAttr(attribute, 0) != 0 && graph.value(node.inputs[index]).constant) {
                node.inputs[index] = addTransposedConstant(graph, node.inputs[index]);
                node.attributes[attribute] = int64_t{0};
            }
        }
        const bool hasC = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
        if (hasC && graph.value(node.inputs[2]).constant && graph.value(node.inputs[2]).dtype != DType::Fp32) {
            node.inputs[2] = addWidenedConstant(graph, node.inputs[2]);
        }
        const auto beta = static_cast<float>(node.floatAttr("beta", 1.0));
        if (hasC && beta != 1.0f && beta != 0.0f && graph.value(node.inputs[2]).constant) {
            node.inputs[2] = addScaledConstant(graph, node.inputs[2], beta);
            node.attributes["beta"] = 1.0;
        }
    }
}

}  // namespace npusim::compiler
