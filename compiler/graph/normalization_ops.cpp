// LayerNormalization (over the dims from `axis` on, with optional Mean and InvStdDev outputs) and
// BatchNormalization in inference mode (per channel, with the running statistics given as
// inputs). Statistics and results are computed in double and rounded once.
#include <cmath>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// ONNX's stash_type for computing LayerNormalization's statistics in fp32 (TensorProto FLOAT).
constexpr int64_t kStashFloat = 1;

int64_t layerNormAxis(const Node& node, const Shape& x) {
    return normalizeAxis(node, node.intAttr("axis", -1), static_cast<int64_t>(x.size()));
}

/// The shape of Mean and InvStdDev: X's dims before the axis, then ones.
Shape statisticsShape(const Shape& x, int64_t axis) {
    Shape shape(x.begin(), x.begin() + axis);
    shape.resize(x.size(), 1);
    return shape;
}

void checkSameTypeBroadcast(const Node& node, std::string_view name, const Value& operand,
                            const Value& x) {
    if (operand.dtype != x.dtype) {
        opError(node, std::string(name) + " is " + std::string(dtypeName(operand.dtype)) +
                          " but X is " + std::string(dtypeName(x.dtype)) +
                          "; they must have the same dtype");
    }
    if (broadcastShapes(node, x.shape, operand.shape) != x.shape) {
        opError(node, std::string(name) + " is " + shapeString(operand.shape) +
                          ", which does not broadcast to X " + shapeString(x.shape));
    }
}

/// BatchNormalization's per-channel operands: [C], or X's shape without the batch dim where
/// spatial = 0 (opsets 7 and 8) gives each position its own statistics.
void checkBatchNormOperand(const Node& node, std::string_view name, const Value& operand,
                           const Shape& x) {
    requireDType(node, name, operand.dtype, kFloatDTypes);
    const bool spatial = node.intAttr("spatial", 1) != 0;
    const Shape expected = spatial ? Shape{x[1]} : Shape(x.begin() + 1, x.end());
    if (operand.shape != expected) {
        opError(node, std::string(name) + " must be " + shapeString(expected) + " for X " +
                          shapeString(x) + ", got " + shapeString(operand.shape));
    }
}

}  // namespace

void inferLayerNormalization(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, kFloatDTypes);
    checkSameTypeBroadcast(node, "Scale", graph.value(node.inputs[1]), x);
    if (const Value* bias = optionalInput(graph, node, 2)) {
        checkSameTypeBroadcast(node, "B", *bias, x);
    }
    const int64_t stashType = node.intAttr("stash_type", kStashFloat);
    if (stashType != kStashFloat) {
        opError(node, "stash_type " + std::to_string(stashType) +
                          " is not supported; npusim computes the statistics in fp32 "
                          "(stash_type 1)");
    }
    const int64_t axis = layerNormAxis(node, x.shape);
    setOutput(graph, node, x.dtype, x.shape);
    for (size_t i = 1; i < node.outputs.size(); ++i) {
        Value& statistic = graph.value(node.outputs[i]);
        statistic.dtype = DType::Fp32;
        statistic.shape = statisticsShape(x.shape, axis);
    }
}

std::vector<Tensor> interpretLayerNormalization(const Node& node,
                                                std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Tensor& scale = *inputs[1];
    const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
    const int64_t axis = layerNormAxis(node, x.shape);
    const double epsilon = node.floatAttr("epsilon", 1e-5f);
    int64_t rows = 1;
    for (int64_t dim = 0; dim < axis; ++dim) rows *= x.shape[dim];
    const int64_t columns = rows == 0 ? 0 : x.elementCount() / rows;

    const std::vector<double> values = floatValues(x);
    const std::vector<double> scales = floatValues(scale);
    const std::vector<double> biases = bias ? floatValues(*bias) : std::vector<double>();
    const std::vector<int64_t> scaleIndex = broadcastSourceIndices(scale.shape, x.shape);
    const std::vector<int64_t> biasIndex =
        bias ? broadcastSourceIndices(bias->shape, x.shape) : std::vector<int64_t>();
    std::vector<double> y(values.size()), means(rows), inverseDeviations(rows);
    for (int64_t row = 0; row < rows; ++row) {
        const int64_t first = row * columns;
        double sum = 0;
        for (int64_t i = first; i < first + columns; ++i) sum += values[i];
        const double mean = sum / static_cast<double>(columns);
        double squares = 0;
        for (int64_t i = first; i < first + columns; ++i) {
            squares += (values[i] - mean) * (values[i] - mean);
        }
        const double inverse = 1.0 / std::sqrt(squares / static_cast<double>(columns) + epsilon);
        for (int64_t i = first; i < first + columns; ++i) {
            y[i] = (values[i] - mean) * inverse * scales[scaleIndex[i]] +
                   (bias ? biases[biasIndex[i]] : 0.0);
        }
        means[row] = mean;
        inverseDeviations[row] = inverse;
    }
    std::vector<Tensor> outputs{floatTensor(x.dtype, x.shape, y)};
    const Shape statistics = statisticsShape(x.shape, axis);
    if (node.outputs.size() > 1) outputs.push_back(floatTensor(DType::Fp32, statistics, means));
    if (node.outputs.size() > 2) {
        outputs.push_back(floatTensor(DType::Fp32, statistics, inverseDeviations));
    }
    return outputs;
}

void inferBatchNormalization(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const bool training = node.intAttr("training_mode", 0) != 0;
    if (!training && node.outputs.size() > 1) {
        opError(node, "outputs of running or saved statistics without training_mode (BatchNormalization before opset 14) "
                      "are not supported");
    }
    if (training && node.outputs.size() > 3) opError(node, "in training mode it has at most 3 outputs");
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, kFloatDTypes);
    if (x.shape.size() < 2) {
        opError(node, "X must be [N, C, ...], got " + shapeString(x.shape));
    }
    const char* names[] = {"scale", "B", "input_mean", "input_var"};
    for (size_t i = 1; i < node.inputs.size(); ++i) {
        checkBatchNormOperand(node, names[i - 1], graph.value(node.inputs[i]), x.shape);
    }
    setOutput(graph, node, x.dtype, x.shape);
    for (size_t i = 1; i < node.outputs.size(); ++i) {  // running mean and variance, as the inputs
        Value& statistic = graph.value(node.outputs[i]);
        const Value& input = graph.value(node.inputs[2 + i]);
        statistic.dtype = input.dtype;
        statistic.shape = input.shape;
    }
}

/// Y = scale * (X - mean) / sqrt(var + epsilon) + B, per channel (or per position, spatial = 0).
/// In training mode the mean and (population) variance are the batch's, per channel, and the
/// running statistics come out as input * momentum + batch * (1 - momentum).
std::vector<Tensor> interpretBatchNormalization(const Node& node,
                                                std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const std::vector<double> scale = floatValues(*inputs[1]), bias = floatValues(*inputs[2]);
    std::vector<double> mean = floatValues(*inputs[3]), variance = floatValues(*inputs[4]);
    const double epsilon = node.floatAttr("epsilon", 1e-5f);
    const bool spatial = node.intAttr("spatial", 1) != 0;
    const int64_t channels = x.shape[1];
    const int64_t batch = x.shape[0];
    const int64_t positions = batch * channels == 0 ? 0 : x.elementCount() / (batch * channels);
    std::vector<double> y = floatValues(x);
    const bool training = node.intAttr("training_mode", 0) != 0;
    std::vector<Tensor> running;
    if (training) {
        std::vector<double> batchMean(static_cast<size_t>(channels)), batchVariance(static_cast<size_t>(channels));
        const double count = static_cast<double>(batch * positions);
        for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) batchMean[static_cast<size_t>(i / positions % channels)] += y[i] / count;
        for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
            const double d = y[i] - batchMean[static_cast<size_t>(i / positions % channels)];
            batchVariance[static_cast<size_t>(i / positions % channels)] += d * d / count;
        }
        const double momentum = node.floatAttr("momentum", 0.9);
        std::vector<double> runningMean(mean.size()), runningVariance(variance.size());
        for (size_t c = 0; c < mean.size(); ++c) {
            runningMean[c] = mean[c] * momentum + batchMean[c] * (1 - momentum);
            runningVariance[c] = variance[c] * momentum + batchVariance[c] * (1 - momentum);
        }
        running = {floatTensor(inputs[3]->dtype, inputs[3]->shape, runningMean), floatTensor(inputs[4]->dtype, inputs[4]->shape, runningVariance)};
        mean = batchMean;
        variance = batchVariance;
    }
    for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
        const int64_t channel = i / positions % channels;
        const int64_t param = spatial ? channel : channel * positions + i % positions;
        y[i] = scale[param] * (y[i] - mean[param]) / std::sqrt(variance[param] + epsilon) +
               bias[param];
    }
    std::vector<Tensor> outputs{floatTensor(x.dtype, x.shape, y)};
    for (size_t i = 1; i < node.outputs.size(); ++i) outputs.push_back(running.at(i - 1));
    return outputs;
}

}  // namespace npusim::compiler::ops
