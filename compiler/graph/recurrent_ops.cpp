// LSTM, GRU and RNN with their default activations (sigmoid for gates, tanh otherwise), in
// either layout, one or both directions, with optional biases, initial states and LSTM
// peepholes. Sequence lengths, when given, must be constants equal to the sequence length:
// the recurrence is static. The reference computes in double and rounds once per output.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/recurrence.h"

namespace npusim::compiler::ops {

int64_t recurrenceGates(OpKind kind) {
    return kind == OpKind::LSTM ? 4 : kind == OpKind::GRU ? 3 : 1;
}

Recurrence recurrenceOf(const Graph& graph, const Node& node) {
    Recurrence r;
    r.gates = recurrenceGates(node.kind);
    r.batchFirst = node.intAttr("layout", 0) == 1;
    const Shape& x = graph.value(node.inputs[0]).shape;
    const Shape& w = graph.value(node.inputs[1]).shape;
    r.steps = x.at(r.batchFirst ? 1 : 0);
    r.batch = x.at(r.batchFirst ? 0 : 1);
    r.inputs = x.at(2);
    r.directions = w.at(0);
    r.hidden = w.at(1) / r.gates;
    r.reverseOnly = stringAttr(node, "direction", "forward") == "reverse";
    r.linearBeforeReset = node.intAttr("linear_before_reset", 0) != 0;
    return r;
}

namespace {

void requireShape(const Node& node, const char* what, const Shape& shape, const Shape& expected) {
    if (shape != expected) {
        opError(node, std::string(what) + " is " + shapeString(shape) + "; expected " + shapeString(expected));
    }
}

}  // namespace

void inferRecurrent(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, kFloatDTypes);
    const int64_t layout = node.intAttr("layout", 0);
    if (layout != 0 && layout != 1) opError(node, "layout " + std::to_string(layout) + " must be 0 or 1");
    const std::string direction = stringAttr(node, "direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
        opError(node, "direction '" + direction + "' must be forward, reverse or bidirectional");
    }
    for (const char* unsupported : {"activations", "activation_alpha", "activation_beta", "clip"}) {
        if (node.attributes.contains(unsupported)) {
            opError(node, std::string("attribute '") + unsupported + "' is not supported: npusim runs the default activations, unclipped");
        }
    }
    if (node.intAttr("input_forget", 0) != 0) opError(node, "input_forget = 1 is not supported");
    for (const auto& [index, what] : {std::pair<size_t, const char*>{0, "X"}, {1, "W"}, {2, "R"}}) {
        const Shape& shape = graph.value(node.inputs[index]).shape;
        if (shape.size() != 3) opError(node, std::string(what) + " is " + shapeString(shape) + "; it must have rank 3");
    }
    const Recurrence r = recurrenceOf(graph, node);
    const int64_t directions = direction == "bidirectional" ? 2 : 1;
    const int64_t hidden = node.intAttr("hidden_size", r.hidden);
    const int64_t gh = r.gates * hidden;
    const auto requireInput = [&](size_t index, const char* what, const Shape& expected) {
        const Value* value = optionalInput(graph, node, index);
        if (value == nullptr) return;
        requireShape(node, what, value->shape, expected);
        requireSameDType(node, what, value->dtype, "X", x.dtype);
    };
    requireInput(1, "W", {directions, gh, r.inputs});
    requireInput(2, "R", {directions, gh, hidden});
    requireInput(3, "B", {directions, 2 * gh});
    if (const Value* lengths = optionalInput(graph, node, 4)) {
        const std::vector<int64_t> values = constantInts(graph, node, 4, "sequence_lens");
        for (int64_t length : values) {
            if (length != r.steps) {
                opError(node, "sequence_lens holds " + std::to_string(length) + "; npusim runs whole sequences of " +
                                  std::to_string(r.steps) + " steps");
            }
        }
        requireShape(node, "sequence_lens", lengths->shape, {r.batch});
    }
    const Shape state = r.batchFirst ? Shape{r.batch, directions, hidden} : Shape{directions, r.batch, hidden};
    requireInput(5, "initial_h", state);
    if (node.kind == OpKind::LSTM) {
        requireInput(6, "initial_c", state);
        requireInput(7, "P", {directions, 3 * hidden});
    }
    const Shape y = r.batchFirst ? Shape{r.batch, r.steps, directions, hidden} : Shape{r.steps, directions, r.batch, hidden};
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        Value& out = graph.value(node.outputs[i]);
        out.dtype = x.dtype;
        out.shape = i == 0 ? y : state;
    }
}

namespace {

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

}  // namespace

std::vector<Tensor> interpretRecurrent(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& xTensor = *inputs[0];
    const int64_t gates = recurrenceGates(node.kind);
    const bool batchFirst = node.intAttr("layout", 0) == 1;
    const int64_t steps = xTensor.shape[batchFirst ? 1 : 0], batch = xTensor.shape[batchFirst ? 0 : 1];
    const int64_t in = xTensor.shape[2], dirs = inputs[1]->shape[0], hidden = inputs[1]->shape[1] / gates;
    const bool reverseOnly = stringAttr(node, "direction", "forward") == "reverse";
    const bool linearBeforeReset = node.intAttr("linear_before_reset", 0) != 0;
    const auto optional = [&](size_t i) { return i < inputs.size() && inputs[i] ? floatValues(*inputs[i]) : std::vector<double>(); };
    const std::vector<double> x = floatValues(xTensor), w = floatValues(*inputs[1]), rw = floatValues(*inputs[2]);
    const std::vector<double> bias = optional(3), h0 = optional(5), c0 = optional(6), peep = optional(7);
    const int64_t gh = gates * hidden;
    // Element offsets in either layout.
    const auto xAt = [&](int64_t t, int64_t b) { return (batchFirst ? b * steps + t : t * batch + b) * in; };
    const auto stateAt = [&](int64_t d, int64_t b) { return (batchFirst ? b * dirs + d : d * batch + b) * hidden; };
    const auto yAt = [&](int64_t t, int64_t d, int64_t b) {
        return (batchFirst ? (b * steps + t) * dirs + d : (t * dirs + d) * batch + b) * hidden;
    };
    std::vector<double> y(static_cast<size_t>(steps * dirs * batch * hidden)), yh(static_cast<size_t>(dirs * batch * hidden)),
        yc(yh.size());
    for (int64_t d = 0; d < dirs; ++d) {
        const bool reverse = reverseOnly || d == 1;
        std::vector<double> h(static_cast<size_t>(batch * hidden)), c(h.size());
        for (int64_t b = 0; b < batch; ++b) {
            for (int64_t j = 0; j < hidden; ++j) {
                if (!h0.empty()) h[b * hidden + j] = h0[stateAt(d, b) + j];
                if (!c0.empty()) c[b * hidden + j] = c0[stateAt(d, b) + j];
            }
        }
        // Row g*H+j of W, R and the biases belongs to gate g, unit j.
        const auto inputPart = [&](int64_t t, int64_t b, int64_t row) {
            double sum = bias.empty() ? 0.0 : bias[d * 2 * gh + row];
            for (int64_t k = 0; k < in; ++k) sum += x[xAt(t, b) + k] * w[(d * gh + row) * in + k];
            return sum;
        };
        const auto recurrentPart = [&](const std::vector<double>& state, int64_t b, int64_t row) {
            double sum = bias.empty() ? 0.0 : bias[d * 2 * gh + gh + row];
            for (int64_t k = 0; k < hidden; ++k) sum += state[b * hidden + k] * rw[(d * gh + row) * hidden + k];
            return sum;
        };
        for (int64_t s = 0; s < steps; ++s) {
            const int64_t t = reverse ? steps - 1 - s : s;
            std::vector<double> next(h.size()), nextC(c.size());
            // GRU's default candidate reads the reset state r * h through R.
            std::vector<double> resetState(h.size());
            for (int64_t b = 0; node.kind == OpKind::GRU && !linearBeforeReset && b < batch; ++b) {
                for (int64_t j = 0; j < hidden; ++j) {
                    const double r = sigmoid(inputPart(t, b, hidden + j) + recurrentPart(h, b, hidden + j));
                    resetState[b * hidden + j] = r * h[b * hidden + j];
                }
            }
            for (int64_t b = 0; b < batch; ++b) {
                for (int64_t j = 0; j < hidden; ++j) {
                    const auto gate = [&](int64_t g) { return inputPart(t, b, g * hidden + j) + recurrentPart(h, b, g * hidden + j); };
                    const double previous = h[b * hidden + j];
                    if (node.kind == OpKind::RNN) {
                        next[b * hidden + j] = std::tanh(gate(0));
                    } else if (node.kind == OpKind::GRU) {
                        const double z = sigmoid(gate(0)), r = sigmoid(gate(1));
                        double candidate = inputPart(t, b, 2 * hidden + j);
                        candidate += linearBeforeReset ? r * recurrentPart(h, b, 2 * hidden + j)
                                                       : recurrentPart(resetState, b, 2 * hidden + j);
                        next[b * hidden + j] = (1 - z) * std::tanh(candidate) + z * previous;
                    } else {
                        const double cell = c[b * hidden + j];
                        const auto peephole = [&](int64_t p, double state) { return peep.empty() ? 0.0 : peep[d * 3 * hidden + p * hidden + j] * state; };
                        const double i = sigmoid(gate(0) + peephole(0, cell)), f = sigmoid(gate(2) + peephole(2, cell));
                        const double updated = f * cell + i * std::tanh(gate(3));
                        const double o = sigmoid(gate(1) + peephole(1, updated));
                        nextC[b * hidden + j] = updated;
                        next[b * hidden + j] = o * std::tanh(updated);
                    }
                }
            }
            h = std::move(next);
            if (node.kind == OpKind::LSTM) c = std::move(nextC);
            for (int64_t b = 0; b < batch; ++b) {
                std::copy_n(h.begin() + b * hidden, hidden, y.begin() + yAt(t, d, b));
            }
        }
        for (int64_t b = 0; b < batch; ++b) {
            std::copy_n(h.begin() + b * hidden, hidden, yh.begin() + stateAt(d, b));
            std::copy_n(c.begin() + b * hidden, hidden, yc.begin() + stateAt(d, b));
        }
    }
    const Shape state = batchFirst ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
    const Shape yShape = batchFirst ? Shape{batch, steps, dirs, hidden} : Shape{steps, dirs, batch, hidden};
    std::vector<Tensor> outputs = {floatTensor(xTensor.dtype, yShape, y), floatTensor(xTensor.dtype, state, yh),
                                   floatTensor(xTensor.dtype, state, yc)};
    outputs.resize(node.outputs.size());
    return outputs;
}

}  // namespace npusim::compiler::ops
