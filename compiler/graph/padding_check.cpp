// The padding check: per value, the dims that carry the symbol, op by op. Ops that keep
// positions apart map those dims to their outputs (elementwise ops with broadcasting, a
// MatMul's or Gemm's outer dims, a Transpose, reductions and normalisations over other dims,
// running sums, top-k and arg-extremes along other dims);
// every other op touching a carried dim is refused.
#include "compiler/graph/padding_check.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "arch/error.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler {
namespace {

using Dims = std::set<int64_t>;

class PaddingFlow {
public:
    PaddingFlow(const Graph& graph, std::map<ValueId, Dims> seeds, std::string what, std::string consequence)
        : graph_(graph), what_(std::move(what)), consequence_(std::move(consequence)), carried_(std::move(seeds)) {}

    std::map<ValueId, Dims> run() && {
        for (const Node& node : graph_.nodes) visit(node);
        return std::move(carried_);
    }

private:
    const Dims& dims(ValueId id) const {
        static const Dims none;
        const auto it = carried_.find(id);
        return it == carried_.end() ? none : it->second;
    }

    int64_t rank(ValueId id) const { return static_cast<int64_t>(graph_.value(id).shape.size()); }

    [[noreturn]] void mixes(const Node& node, const std::string& how) const {
        opError(node, how + " would mix " + what_ + " into real ones" + consequence_);
    }

    /// Dims of `input` aligned right onto an output of rank `outRank` (broadcasting).
    void alignRight(ValueId input, int64_t outRank, Dims& out) const {
        for (int64_t d : dims(input)) out.insert(d + outRank - rank(input));
    }

    /// The dims `node` reduces or normalises over, for the row-wise ops.
    std::optional<Dims> rowwiseAxes(const Node& node) const {
        const int64_t r = rank(node.inputs[0]);
        Dims axes;
        switch (node.kind) {
            case OpKind::Softmax:
            case OpKind::LogSoftmax:
            case OpKind::Hardmax:
                axes.insert(ops::normalizeAxis(node, node.intAttr("axis", -1), r));
                return axes;
            case OpKind::LayerNormalization:
            case OpKind::RmsNormalization:
                for (int64_t d = ops::normalizeAxis(node, node.intAttr("axis", -1), r); d < r; ++d) axes.insert(d);
                return axes;
            default: return std::nullopt;
        }
    }

    /// The axis an op scans along (a running sum, a top-k, an arg-extreme), nullopt for others.
    std::optional<int64_t> scanAxis(const Node& node) const {
        const int64_t r = rank(node.inputs[0]);
        switch (node.kind) {
            case OpKind::CumSum: return ops::normalizeAxis(node, ops::constantInts(graph_, node, 1, "axis").at(0), r);
            case OpKind::TopK: return ops::normalizeAxis(node, node.intAttr("axis", -1), r);
            case OpKind::ArgMax:
            case OpKind::ArgMin: return ops::normalizeAxis(node, node.intAttr("axis", 0), r);
            default: return std::nullopt;
        }
    }

    void visit(const Node& node) {
        const bool touched = std::any_of(node.inputs.begin(), node.inputs.end(),
                                         [&](ValueId id) { return id != kNoValue && !dims(id).empty(); });
        if (!touched) return;
        const ValueId out = node.outputs[0];
        Dims& result = carried_[out];
        if (hasTrait(node.kind, kElementwise)) {
            for (ValueId id : node.inputs) {
                if (id != kNoValue) alignRight(id, rank(out), result);
            }
            return;
        }
        if (node.kind == OpKind::MatMul || node.kind == OpKind::MatMulInteger) {
            const ValueId a = node.inputs[0], b = node.inputs[1];
            if (rank(a) < 2 || rank(b) < 2) mixes(node, "a MatMul of a vector");
            if (dims(a).contains(rank(a) - 1) || dims(b).contains(rank(b) - 2)) mixes(node, "the MatMul's inner dim");
            for (int64_t d : dims(a)) result.insert(d == rank(a) - 2 ? rank(out) - 2 : d + rank(out) - rank(a));
            for (int64_t d : dims(b)) result.insert(d == rank(b) - 1 ? rank(out) - 1 : d + rank(out) - rank(b));
            return;
        }
        if (node.kind == OpKind::Gemm) {
            const bool transA = node.intAttr("transA", 0) != 0, transB = node.intAttr("transB", 0) != 0;
            const Dims& a = dims(node.inputs[0]);
            const Dims& b = dims(node.inputs[1]);
            if (a.contains(transA ? 0 : 1) || b.contains(transB ? 1 : 0)) mixes(node, "the Gemm's inner dim");
            if (a.contains(transA ? 1 : 0)) result.insert(0);
            if (b.contains(transB ? 0 : 1)) result.insert(1);
            if (node.inputs.size() > 2 && node.inputs[2] != kNoValue) alignRight(node.inputs[2], 2, result);
            return;
        }
        if (node.kind == OpKind::Transpose || node.kind == OpKind::Reformat) {
            // Output dim d is input dim perm[d]; no perm reverses the dims.
            std::vector<int64_t> reversed(static_cast<size_t>(rank(node.inputs[0])));
            for (size_t d = 0; d < reversed.size(); ++d) reversed[d] = static_cast<int64_t>(reversed.size() - 1 - d);
            const std::vector<int64_t> perm = ops::intListAttr(node, "perm", reversed);
            for (size_t d = 0; d < perm.size(); ++d) {
                if (dims(node.inputs[0]).contains(perm[d])) result.insert(static_cast<int64_t>(d));
            }
            return;
        }
        if (const std::optional<int64_t> axis = scanAxis(node)) {
            const bool dropsAxis = (node.kind == OpKind::ArgMax || node.kind == OpKind::ArgMin) && node.intAttr("keepdims", 1) == 0;
            if (node.inputs.size() > 1 && !dims(node.inputs[1]).empty()) mixes(node, "a padded axis or k");
            for (int64_t d : dims(node.inputs[0])) {
                if (d == *axis) mixes(node, "working along the padded dim");
                result.insert(dropsAxis && d > *axis ? d - 1 : d);
            }
            for (size_t o = 1; o < node.outputs.size(); ++o) carried_[node.outputs[o]] = result;  // TopK's indices
            return;
        }
        if (const std::optional<Dims> axes = rowwiseAxes(node)) {
            for (int64_t d : dims(node.inputs[0])) {
                if (axes->contains(d)) mixes(node, "normalising over the padded dim");
                result.insert(d);
            }
            for (size_t i = 1; i < node.inputs.size(); ++i) {
                if (node.inputs[i] != kNoValue && !dims(node.inputs[i]).empty()) mixes(node, "a scale or bias along the padded dim");
            }
            return;
        }
        if (node.kind == OpKind::Gather) {
            // Output dims: data's before the axis, the indices', data's after the axis.
            const int64_t axis = ops::normalizeAxis(node, node.intAttr("axis", 0), rank(node.inputs[0]));
            for (int64_t d : dims(node.inputs[0])) {
                if (d == axis) mixes(node, "gathering along the padded dim");
                result.insert(d < axis ? d : d - 1 + rank(node.inputs[1]));
            }
            for (int64_t d : dims(node.inputs[1])) result.insert(axis + d);
            return;
        }
        if (node.kind == OpKind::Squeeze || node.kind == OpKind::Unsqueeze) {
            mapAroundAxes(node, result);
            return;
        }
        mixes(node, std::string(opInfo(node.kind).name) + " on a padded tensor");
    }

    /// Squeeze drops, Unsqueeze inserts, the size-1 dims at its axes; the other dims keep their order.
    void mapAroundAxes(const Node& node, Dims& result) const {
        const bool squeeze = node.kind == OpKind::Squeeze;
        const int64_t inRank = rank(node.inputs[0]), outRank = rank(node.outputs[0]);
        std::vector<int64_t> axes = ops::intsFromAttributeOrInput(graph_, node, "axes", 1).value_or(std::vector<int64_t>{});
        if (squeeze && axes.empty()) {  // every size-1 dim
            for (int64_t d = 0; d < inRank; ++d) {
                if (graph_.value(node.inputs[0]).shape[static_cast<size_t>(d)] == 1) axes.push_back(d);
            }
        }
        Dims special;
        for (int64_t axis : axes) special.insert(ops::normalizeAxis(node, axis, squeeze ? inRank : outRank));
        int64_t out = 0;
        for (int64_t in = 0; in < inRank; ++in) {
            if (squeeze && special.contains(in)) {
                if (dims(node.inputs[0]).contains(in)) mixes(node, "squeezing the padded dim");
                continue;
            }
            while (!squeeze && special.contains(out)) ++out;
            if (dims(node.inputs[0]).contains(in)) result.insert(out);
            ++out;
        }
    }

    const Graph& graph_;
    std::string what_, consequence_;
    std::map<ValueId, Dims> carried_;
};

}  // namespace

std::map<ValueId, std::set<int64_t>> followPadding(const Graph& graph, std::map<ValueId, std::set<int64_t>> seeds,
                                                   const std::string& what, const std::string& consequence) {
    return PaddingFlow(graph, std::move(seeds), what, consequence).run();
}

void checkPaddable(const Graph& graph, const std::string& symbol) {
    const auto dimsNamed = [&](const Value& value) {
        Dims dims;
        for (size_t d = 0; d < value.symbols.size(); ++d) {
            if (value.symbols[d] == symbol) dims.insert(static_cast<int64_t>(d));
        }
        return dims;
    };
    std::map<ValueId, Dims> seeds;
    for (ValueId id : graph.inputs) {
        if (Dims dims = dimsNamed(graph.value(id)); !dims.empty()) seeds[id] = std::move(dims);
    }
    const std::map<ValueId, Dims> carried = followPadding(graph, std::move(seeds), "padded positions of '" + symbol + "'",
                                                          ", so the model cannot run padded to a bucket");
    for (ValueId id : graph.outputs) {
        const Value& value = graph.value(id);
        const auto found = carried.find(id);
        if (dimsNamed(value) != (found == carried.end() ? Dims{} : found->second)) {
            throw InputError("output '" + value.name + "' does not declare '" + symbol +
                             "' on the dims that follow it from the inputs; it cannot be sliced back from a bucket");
        }
    }
}

}  // namespace npusim::compiler
