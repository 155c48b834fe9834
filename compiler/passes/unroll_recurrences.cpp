// unroll-recurrences: LSTM, GRU and RNN as the ops the NPU runs. Per direction, the input
// products of every step are one Gemm ([steps * batch, inputs] by W^T, with the biases that
// do not depend on the state); each step then adds the state's product with R^T (a Gemm) and
// applies the gates on the vector unit:
//   RNN:  h = tanh(x + h R^T)
//   GRU:  z, r = sigmoid(x_zr + h R_zr^T);  c = tanh(x_h + (r h) R_h^T)  (or r (h R_h^T + Rb_h)
//         with linear_before_reset);  h = c + z (h - c)
//   LSTM: i, o, f from sigmoid(x + h R^T + P c), c = f c + i tanh(x_c + h R_c^T), h = o tanh(c)
// Y stacks each step's h in time order, Y_h and Y_c hold the last step's states. Layout 1
// (batch first) is transposed to time-major on the way in and back on the way out.
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "compiler/graph/op_table.h"
#include "compiler/graph/recurrence.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

class Unroller {
public:
    Unroller(GraphRewriter& r, const Node& node)
        : r_(r), node_(node), g_(ops::recurrenceOf(r.graph(), node)), dtype_(r.graph().value(node.inputs[0]).dtype) {}

    void run() {
        prefix_ = node_.name + ".";
        const int64_t gh = g_.gates * g_.hidden, dirs = g_.directions;
        ValueId x = input(0);
        if (g_.batchFirst) x = add(OpKind::Transpose, "x_time_major", {x}, {{"perm", std::vector<int64_t>{1, 0, 2}}});
        const ValueId rows = reshape(x, {g_.steps * g_.batch, g_.inputs}, "x_rows");
        const ValueId h0 = state(5), c0 = node_.kind == OpKind::LSTM ? state(6) : kNoValue;
        std::vector<ValueId> ys, hs, cs;
        for (int64_t d = 0; d < dirs; ++d) {
            prefix_ = node_.name + ".d" + std::to_string(d) + ".";
            const ValueId w = reshape(slice(input(1), 0, d, d + 1), {gh, g_.inputs}, "w");
            const ValueId rw = reshape(slice(input(2), 0, d, d + 1), {gh, g_.hidden}, "r");
            ValueId inputBias = kNoValue, stateBias = kNoValue;
            if (input(3) != kNoValue) {
                const ValueId b = reshape(slice(input(3), 0, d, d + 1), {2 * gh}, "b");
                inputBias = slice(b, 0, 0, gh);
                ValueId rb = slice(b, 0, gh, 2 * gh);
                if (node_.kind == OpKind::GRU && g_.linearBeforeReset) {
                    // Rb_h is applied inside the reset: only Rb_z and Rb_r join the input products.
                    stateBias = slice(rb, 0, 2 * g_.hidden, gh);
                    rb = add(OpKind::Concat, "rb_zr", {slice(rb, 0, 0, 2 * g_.hidden), zeros({g_.hidden}, "no_rb_h")},
                             {{"axis", int64_t{0}}});
                }
                inputBias = add(OpKind::Add, "input_bias", {inputBias, rb});
            }
            std::vector<ValueId> gemmInputs = {rows, w};
            if (inputBias != kNoValue) gemmInputs.push_back(inputBias);
            const ValueId products = add(OpKind::Gemm, "input_products", gemmInputs, {{"transB", int64_t{1}}});
            ValueId h = h0 == kNoValue ? zeros({g_.batch, g_.hidden}, "h0") : reshape(slice(h0, 0, d, d + 1), {g_.batch, g_.hidden}, "h0");
            ValueId c = kNoValue;
            if (node_.kind == OpKind::LSTM) {
                c = c0 == kNoValue ? zeros({g_.batch, g_.hidden}, "c0") : reshape(slice(c0, 0, d, d + 1), {g_.batch, g_.hidden}, "c0");
            }
            const bool reverse = g_.reverseOnly || d == 1;
            std::vector<ValueId> steps(static_cast<size_t>(g_.steps));
            for (int64_t s = 0; s < g_.steps; ++s) {
                const int64_t t = reverse ? g_.steps - 1 - s : s;
                char label[32];
                std::snprintf(label, sizeof label, "t%lld.", static_cast<long long>(t));
                step_ = label;
                const ValueId xt = slice(products, 0, t * g_.batch, (t + 1) * g_.batch);
                if (node_.kind == OpKind::RNN) h = rnnStep(xt, h, rw);
                if (node_.kind == OpKind::GRU) h = gruStep(xt, h, rw, stateBias);
                if (node_.kind == OpKind::LSTM) std::tie(h, c) = lstmStep(xt, h, c, rw, d);
                steps[static_cast<size_t>(t)] = reshape(h, {1, 1, g_.batch, g_.hidden}, "y");
            }
            step_.clear();
            ys.push_back(steps.size() == 1 ? steps[0] : add(OpKind::Concat, "y", steps, {{"axis", int64_t{0}}}));
            hs.push_back(reshape(h, {1, g_.batch, g_.hidden}, "y_h"));
            if (c != kNoValue) cs.push_back(reshape(c, {1, g_.batch, g_.hidden}, "y_c"));
        }
        prefix_ = node_.name + ".";
        const std::vector<int64_t> yPerm = {2, 0, 1, 3}, statePerm = {1, 0, 2};
        finish(0, ys, 1, yPerm);
        finish(1, hs, 0, statePerm);
        finish(2, cs, 0, statePerm);
    }

private:
    ValueId rnnStep(ValueId xt, ValueId h, ValueId rw) {
        return add(OpKind::Tanh, "h", {add(OpKind::Add, "pre", {xt, gemm(h, rw, kNoValue, "hr")})});
    }

    ValueId gruStep(ValueId xt, ValueId h, ValueId rw, ValueId stateBias) {
        const int64_t n = g_.hidden;
        const ValueId rzr = slice(rw, 0, 0, 2 * n), rh = slice(rw, 0, 2 * n, 3 * n);
        const ValueId zr = add(OpKind::Sigmoid, "zr", {add(OpKind::Add, "zr_pre", {slice(xt, 1, 0, 2 * n), gemm(h, rzr, kNoValue, "hr_zr")})});
        const ValueId z = slice(zr, 1, 0, n), r = slice(zr, 1, n, 2 * n);
        const ValueId recurrent = g_.linearBeforeReset
                                      ? add(OpKind::Mul, "reset_hr", {r, gemm(h, rh, stateBias, "hr_h")})
                                      : gemm(add(OpKind::Mul, "reset_h", {r, h}), rh, kNoValue, "reset_hr");
        const ValueId candidate = add(OpKind::Tanh, "candidate", {add(OpKind::Add, "candidate_pre", {slice(xt, 1, 2 * n, 3 * n), recurrent})});
        const ValueId kept = add(OpKind::Mul, "kept", {z, add(OpKind::Sub, "delta", {h, candidate})});
        return add(OpKind::Add, "h", {candidate, kept});
    }

    std::pair<ValueId, ValueId> lstmStep(ValueId xt, ValueId h, ValueId c, ValueId rw, int64_t d) {
        const int64_t n = g_.hidden;
        const ValueId pre = add(OpKind::Add, "pre", {xt, gemm(h, rw, kNoValue, "hr")});
        const auto gate = [&](int64_t index) { return slice(pre, 1, index * n, (index + 1) * n); };
        // Peepholes P (i, o, f) scale the cell state into the gates.
        const auto peephole = [&](ValueId value, int64_t index, ValueId cell) {
            if (input(7) == kNoValue) return value;
            const ValueId p = slice(reshape(slice(input(7), 0, d, d + 1), {3 * n}, "p"), 0, index * n, (index + 1) * n);
            return add(OpKind::Add, "peephole", {value, add(OpKind::Mul, "peephole_c", {p, cell})});
        };
        const ValueId i = add(OpKind::Sigmoid, "i", {peephole(gate(0), 0, c)});
        const ValueId f = add(OpKind::Sigmoid, "f", {peephole(gate(2), 2, c)});
        const ValueId candidate = add(OpKind::Tanh, "candidate", {gate(3)});
        const ValueId cell = add(OpKind::Add, "c", {add(OpKind::Mul, "forget", {f, c}), add(OpKind::Mul, "write", {i, candidate})});
        const ValueId o = add(OpKind::Sigmoid, "o", {peephole(gate(1), 1, cell)});
        return {add(OpKind::Mul, "h", {o, add(OpKind::Tanh, "c_tanh", {cell})}), cell};
    }

    /// Writes output `index` (when the node has it): the per-direction parts joined along
    /// `axis`, transposed by `batchFirstPerm` for layout 1.
    void finish(size_t index, const std::vector<ValueId>& parts, int64_t axis, const std::vector<int64_t>& batchFirstPerm) {
        if (index >= node_.outputs.size()) return;
        const ValueId out = node_.outputs[index];
        const std::string name = node_.name + ".out" + std::to_string(index);
        if (g_.batchFirst) {
            const ValueId joined = parts.size() == 1 ? parts[0] : add(OpKind::Concat, "joined", parts, {{"axis", axis}});
            r_.add(OpKind::Transpose, name, {joined}, {{"perm", batchFirstPerm}}, {out});
        } else {
            r_.add(OpKind::Concat, name, parts, {{"axis", axis}}, {out});
        }
    }

    ValueId input(size_t index) const { return index < node_.inputs.size() ? node_.inputs[index] : kNoValue; }

    /// Initial state input `index` in [directions, batch, hidden] order, kNoValue when absent.
    ValueId state(size_t index) {
        const ValueId value = input(index);
        if (value == kNoValue || !g_.batchFirst) return value;
        return add(OpKind::Transpose, "state_direction_major", {value}, {{"perm", std::vector<int64_t>{1, 0, 2}}});
    }

    ValueId add(OpKind kind, const std::string& suffix, std::vector<ValueId> inputs, std::map<std::string, Attribute> attributes = {}) {
        return r_.add(kind, nodeName(suffix), std::move(inputs), std::move(attributes))[0];
    }

    ValueId gemm(ValueId a, ValueId b, ValueId c, const std::string& suffix) {
        std::vector<ValueId> inputs = {a, b};
        if (c != kNoValue) inputs.push_back(c);
        return add(OpKind::Gemm, suffix, inputs, {{"transB", int64_t{1}}});
    }

    ValueId slice(ValueId value, int64_t axis, int64_t begin, int64_t end) {
        const std::string base = nodeName("slice");
        return r_.add(OpKind::Slice, base,
                      {value, r_.constant(base + ".starts", int64Tensor({begin})), r_.constant(base + ".ends", int64Tensor({end})),
                       r_.constant(base + ".axes", int64Tensor({axis}))})[0];
    }

    ValueId reshape(ValueId value, const std::vector<int64_t>& shape, const std::string& suffix) {
        return add(OpKind::Reshape, suffix, {value, r_.constant(prefix_ + step_ + suffix + ".shape", int64Tensor(shape))});
    }

    /// `<node>.<direction>.<step>.<suffix>`, numbered from the second use on: node names stay unique.
    std::string nodeName(const std::string& suffix) {
        const std::string base = prefix_ + step_ + suffix;
        const int uses = uses_[base]++;
        return uses == 0 ? base : base + "_" + std::to_string(uses);
    }

    ValueId zeros(const Shape& shape, const std::string& suffix) {
        return r_.constant(prefix_ + suffix, Tensor::zeros(dtype_, shape));
    }

    GraphRewriter& r_;
    const Node& node_;
    const ops::Recurrence g_;
    const DType dtype_;
    std::string prefix_, step_;  ///< the name of the direction and step being built
    std::map<std::string, int> uses_;
};

}  // namespace

void unrollRecurrences(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (node.kind != OpKind::LSTM && node.kind != OpKind::GRU && node.kind != OpKind::RNN) return false;
        Unroller(rewriter, node).run();
        return true;
    });
}

}  // namespace npusim::compiler
