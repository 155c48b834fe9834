// Compile-time evaluation of a node with the op table's reference semantics.
#include "compiler/graph/constant_eval.h"

#include "compiler/graph/data_dependent.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler {
namespace {

std::string typeText(DType dtype, const Shape& shape) {
    return std::string(dtypeName(dtype)) + shapeString(shape);
}

/// The outputs of the ops that read only their input's shape (and type); nullopt for any other op.
std::optional<std::vector<Tensor>> shapeOnlyOutputs(const Graph& graph, const Node& node) {
    if (node.inputs.empty() || node.inputs[0] == kNoValue) return std::nullopt;
    const Shape& input = graph.value(node.inputs[0]).shape;
    switch (node.kind) {
        case OpKind::RandomUniformLike:
        case OpKind::RandomNormalLike: {
            const Tensor like = Tensor::zeros(graph.value(node.inputs[0]).dtype, input);
            const Tensor* const operands[] = {&like};
            return opInfo(node.kind).interpret(node, std::span<const Tensor* const>(operands));
        }
        case OpKind::Shape: return std::vector<Tensor>{ops::shapeTensor(node, input)};
        case OpKind::Size: return std::vector<Tensor>{ops::sizeTensor(input)};
        case OpKind::EyeLike:
            return std::vector<Tensor>{ops::eyeLikeTensor(node, graph.value(node.outputs.at(0)).dtype, input)};
        default: return std::nullopt;
    }
}

/// The largest result (per output) folded into a constant.
constexpr uint64_t kMaxFoldedBytes = uint64_t{1} << 30;

}  // namespace

std::optional<std::vector<Tensor>> evaluateIfConstant(const Graph& graph, const Node& node) {
    // Large results stay ops: folding them would hold them in the compiler's memory.
    for (ValueId id : node.outputs) {
        const Value& value = graph.value(id);
        uint64_t bytes = dtypeSize(value.dtype);
        for (int64_t dim : value.shape) {
            if (dim < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes)) return std::nullopt;
        }
        if (bytes > kMaxFoldedBytes) return std::nullopt;
    }
    std::optional<std::vector<Tensor>> outputs = shapeOnlyOutputs(graph, node);
    if (!outputs) {
        std::vector<const Tensor*> operands;
        for (ValueId id : node.inputs) {
            if (id != kNoValue && !graph.value(id).constant) return std::nullopt;
            operands.push_back(id == kNoValue ? nullptr : &*graph.value(id).constant);
        }
        outputs = opInfo(node.kind).interpret(node, operands);
        if (const std::optional<DataDependentSize> size = dataDependentSize(graph, node)) {
            // Known at compile time, the size is exact: the outputs are cut to it.
            const int64_t actual = (*outputs)[size->sizeOutput].as<int64_t>()[0];
            for (const auto& [output, dim] : size->dims) {
                Shape shape = (*outputs)[output].shape;
                shape[static_cast<size_t>(dim)] = actual;
                (*outputs)[output] = cropOrPad((*outputs)[output], shape);
            }
            return outputs;
        }
    }
    if (outputs->size() != node.outputs.size()) {
        opError(node, "computed " + std::to_string(outputs->size()) + " outputs, but " +
                          std::to_string(node.outputs.size()) + " are recorded");
    }
    for (size_t i = 0; i < outputs->size(); ++i) {
        const Value& recorded = graph.value(node.outputs[i]);
        const Tensor& computed = (*outputs)[i];
        if (computed.dtype != recorded.dtype || computed.shape != recorded.shape) {
            opError(node, "output '" + recorded.name + "' is recorded as " +
                              typeText(recorded.dtype, recorded.shape) + " but the op computed " +
                              typeText(computed.dtype, computed.shape));
        }
    }
    return outputs;
}

}  // namespace npusim::compiler
