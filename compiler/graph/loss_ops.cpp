// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 12 on). The input is
// [N, C, d1, ..., dk] and the target [N, d1, ..., dk]: element (n, d) loses
// -input[n, target[n, d], d] * weight[target[n, d]] (weight 1 when absent), and nothing, with
// weight 0, where the target is ignore_index. Reduction "none" keeps the target's shape, "sum"
// adds the losses and "mean" divides that sum by the sum of the weights. SoftmaxCrossEntropyLoss
// is that loss of LogSoftmax along C, whose result is its optional second output. Sums are
// computed in double and rounded once.
#include "compiler/graph/loss.h"

#include <algorithm>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// Checks the operands' dtypes and shapes against each other; returns the geometry.
LossGeometry checkOperands(const Node& node, DType inputType, const Shape& input, DType targetType,
                           const Shape& target, std::optional<std::pair<DType, Shape>> weight) {
    requireDType(node, "input", inputType, kFloatDTypes);
    requireDType(node, "target", targetType, {DType::Int32, DType::Int64});
    if (input.size() < 2) opError(node, "input must have rank >= 2 ([N, C, ...]), got " + shapeString(input));
    Shape expected = {input[0]};
    expected.insert(expected.end(), input.begin() + 2, input.end());
    if (target != expected) {
        opError(node, "target must be " + shapeString(expected) + " for input " + shapeString(input) + ", got " +
                          shapeString(target));
    }
    if (weight) {
        requireSameDType(node, "weight", weight->first, "input", inputType);
        if (weight->second != Shape{input[1]}) {
            opError(node, "weight must be " + shapeString({input[1]}) + " (one per class), got " +
                              shapeString(weight->second));
        }
    }
    const std::string reduction = stringAttr(node, "reduction", "mean");
    if (reduction != "none" && reduction != "sum" && reduction != "mean") {
        opError(node, "reduction '" + reduction + "' is not one of none, sum, mean");
    }
    return {input[0], input[1], elementCount(input) / std::max<int64_t>(input[0] * input[1], 1),
            reduction == "none" ? LossReduction::None
            : reduction == "sum" ? LossReduction::Sum
                                 : LossReduction::Mean};
}

/// The loss of `logProbabilities` (the NLL input) for `target`, reduced.
Tensor negativeLogLikelihood(const Node& node, const Tensor& logProbabilities, const Tensor& target,
                             const Tensor* weight) {
    std::optional<std::pair<DType, Shape>> weightType;
    if (weight) weightType = std::pair{weight->dtype, weight->shape};
    const LossGeometry g =
        checkOperands(node, logProbabilities.dtype, logProbabilities.shape, target.dtype, target.shape, weightType);
    const std::optional<int64_t> ignored = ignoreIndex(node);
    const std::vector<double> input = floatValues(logProbabilities);
    const std::vector<double> weights = weight ? floatValues(*weight) : std::vector<double>(g.classes, 1.0);
    const std::vector<int64_t> targets = integerValues(target);
    std::vector<double> losses(targets.size());
    double total = 0, weightSum = 0;
    for (int64_t n = 0; n < g.batch; ++n) {
        for (int64_t d = 0; d < g.positions; ++d) {
            const int64_t i = n * g.positions + d, t = targets[i];
            if (ignored && t == *ignored) continue;
            if (t < 0 || t >= g.classes) {
                opError(node, "target " + std::to_string(t) + " is outside the classes [0, " +
                                  std::to_string(g.classes) + ")");
            }
            losses[i] = -input[(n * g.classes + t) * g.positions + d] * weights[t];
            total += losses[i];
            weightSum += weights[t];
        }
    }
    switch (g.reduction) {
        case LossReduction::None: return floatTensor(logProbabilities.dtype, target.shape, losses);
        case LossReduction::Sum: return floatTensor(logProbabilities.dtype, {}, std::vector{total});
        case LossReduction::Mean: break;
    }
    return floatTensor(logProbabilities.dtype, {}, std::vector{total / weightSum});
}

}  // namespace

LossGeometry lossGeometry(const Graph& graph, const Node& node) {
    const Value& input = graph.value(node.inputs[0]);
    const Value& target = graph.value(node.inputs[1]);
    std::optional<std::pair<DType, Shape>> weightType;
    if (const Value* weight = optionalInput(graph, node, 2)) weightType = std::pair{weight->dtype, weight->shape};
    return checkOperands(node, input.dtype, input.shape, target.dtype, target.shape, weightType);
}

std::optional<int64_t> ignoreIndex(const Node& node) {
    if (!node.attributes.contains("ignore_index")) return std::nullopt;
    return node.intAttr("ignore_index", 0);
}

void inferLoss(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const LossGeometry g = lossGeometry(graph, node);
    const Value& input = graph.value(node.inputs[0]);
    const Shape target = graph.value(node.inputs[1]).shape;
    setOutput(graph, node, input.dtype, g.reduction == LossReduction::None ? target : Shape{});
    if (node.outputs.size() > 1) {  // SoftmaxCrossEntropyLoss's log_prob
        Value& logProbabilities = graph.value(node.outputs[1]);
        logProbabilities.dtype = input.dtype;
        logProbabilities.shape = input.shape;
    }
}

std::vector<Tensor> interpretNegativeLogLikelihoodLoss(const Node& node, std::span<const Tensor* const> inputs) {
    return {negativeLogLikelihood(node, *inputs[0], *inputs[1], inputs.size() > 2 ? inputs[2] : nullptr)};
}

std::vector<Tensor> interpretSoftmaxCrossEntropyLoss(const Node& node, std::span<const Tensor* const> inputs) {
    const Node logSoftmax{node.name, OpKind::LogSoftmax, {}, {}, {{"axis", int64_t{1}}}};
    Tensor logProbabilities = interpretLogSoftmax(logSoftmax, inputs.first(1))[0];
    std::vector<Tensor> outputs = {
        negativeLogLikelihood(node, logProbabilities, *inputs[1], inputs.size() > 2 ? inputs[2] : nullptr)};
    if (node.outputs.size() > 1) outputs.push_back(std::move(logProbabilities));
    return outputs;
}

}  // namespace npusim::compiler::ops
