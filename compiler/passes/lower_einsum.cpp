// lower-einsum: a float Einsum that is a chain of contractions (no label repeated within an
// operand, no dim broadcast) becomes ops the NPU runs. Operands are contracted left to right;
// each pair is laid out by Transposes and Reshapes as [batch, rows, inner] x [batch, inner,
// columns] for one MatMul, labels no later operand or the output needs summed by ReduceSum
// first; a last Transpose puts the output's labels in order. Other Einsums stay for the CPU.
#include <algorithm>
#include <map>
#include <numeric>

#include "compiler/graph/einsum.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

/// A value and the label of each of its dims.
struct Labelled {
    ValueId value;
    std::string labels;
};

bool contains(const std::string& labels, char c) { return labels.find(c) != std::string::npos; }

class EinsumLowering {
public:
    EinsumLowering(GraphRewriter& r, const Node& node, const ops::EinsumEquation& e) : r_(r), node_(node), e_(e) {}

    void run() {
        Labelled current = keepOnly({node_.inputs[0], e_.inputs[0]}, needed(1, e_.inputs[0]));
        for (size_t i = 1; i < node_.inputs.size(); ++i) {
            const Labelled next{node_.inputs[i], e_.inputs[i]};
            const std::string keep = needed(i + 1, current.labels + next.labels);
            // Each side keeps what the result keeps and what it shares with the other side.
            const auto shared = [&](const Labelled& side, const Labelled& other) {
                std::string labels = keep;
                for (char c : side.labels) {
                    if (contains(other.labels, c)) labels += c;
                }
                return keepOnly(side, labels);
            };
            current = contract(shared(current, next), shared(next, current), keep);
        }
        arrange(current, e_.output, node_.outputs[0]);
    }

private:
    /// The labels of `labels` that the output or an operand from `from` on needs, in order.
    std::string needed(size_t from, const std::string& labels) const {
        std::string kept;
        for (char c : labels) {
            bool later = contains(e_.output, c);
            for (size_t i = from; i < e_.inputs.size(); ++i) later = later || contains(e_.inputs[i], c);
            if (later && !contains(kept, c)) kept += c;
        }
        return kept;
    }

    ValueId add(OpKind kind, const std::string& suffix, std::vector<ValueId> inputs, std::map<std::string, Attribute> attributes = {},
                std::vector<ValueId> outputs = {}) {
        // Ops of one kind are numbered after the first: "e.matmul", "e.matmul1", ...
        const int made = made_[suffix]++;
        const std::string name = node_.name + "." + suffix + (made > 0 ? std::to_string(made) : "");
        return r_.add(kind, name, std::move(inputs), std::move(attributes), std::move(outputs))[0];
    }

    Shape shapeOf(const std::string& labels) const {
        Shape shape;
        for (char c : labels) shape.push_back(e_.sizes.at(c));
        return shape;
    }

    /// `x` with the labels outside `keep` summed away (`keep` must hold only labels of x).
    Labelled keepOnly(const Labelled& x, const std::string& keep) {
        std::vector<int64_t> axes;
        std::string kept;
        for (size_t d = 0; d < x.labels.size(); ++d) {
            if (contains(keep, x.labels[d])) {
                kept += x.labels[d];
            } else {
                axes.push_back(static_cast<int64_t>(d));
            }
        }
        if (axes.empty()) return x;
        return {add(OpKind::ReduceSum, "sum", {x.value}, {{"axes", axes}, {"keepdims", int64_t{0}}}), kept};
    }

    /// `x` with its dims in the order of `labels` (a permutation of its own), into `into` when given.
    Labelled arrange(const Labelled& x, const std::string& labels, std::optional<ValueId> into = std::nullopt) {
        std::vector<int64_t> perm;
        for (char c : labels) perm.push_back(static_cast<int64_t>(x.labels.find(c)));
        std::vector<ValueId> outputs;
        if (into) outputs.push_back(*into);
        std::vector<int64_t> identity(perm.size());
        std::iota(identity.begin(), identity.end(), 0);
        if (perm == identity) {
            if (!into) return x;
            return {add(OpKind::Identity, "result", {x.value}, {}, outputs), labels};
        }
        return {add(OpKind::Transpose, "transpose", {x.value}, {{"perm", perm}}, outputs), labels};
    }

    ValueId reshape(ValueId x, const Shape& shape) {
        if (r_.graph().value(x).shape == shape) return x;
        return add(OpKind::Reshape, "reshape", {x, r_.constant(node_.name + ".shape", int64Tensor(shape))});
    }

    /// The contraction of a and b keeping `keep`: batch labels (both, kept), rows (a only),
    /// columns (b only) and inner labels (both, summed).
    Labelled contract(const Labelled& a, const Labelled& b, const std::string& keep) {
        std::string batch, rows, columns, inner;
        for (char c : a.labels) {
            if (!contains(b.labels, c)) {
                rows += c;
            } else {
                (contains(keep, c) ? batch : inner) += c;
            }
        }
        for (char c : b.labels) {
            if (!contains(a.labels, c)) columns += c;
        }
        const auto size = [&](const std::string& labels) { return elementCount(shapeOf(labels)); };
        const auto matrix = [&](int64_t first, int64_t second) {
            return batch.empty() ? Shape{first, second} : Shape{size(batch), first, second};
        };
        const ValueId left = reshape(arrange(a, batch + rows + inner).value, matrix(size(rows), size(inner)));
        const ValueId right = reshape(arrange(b, batch + inner + columns).value, matrix(size(inner), size(columns)));
        const ValueId product = add(OpKind::MatMul, "matmul", {left, right});
        return {reshape(product, shapeOf(batch + rows + columns)), batch + rows + columns};
    }

    GraphRewriter& r_;
    const Node& node_;
    const ops::EinsumEquation& e_;
    std::map<std::string, int> made_;
};

/// Whether the equation is a chain of plain contractions: no label twice in an operand, every
/// operand's dim the label's full size.
bool isContraction(const Graph& graph, const Node& node, const ops::EinsumEquation& e) {
    for (size_t i = 0; i < e.inputs.size(); ++i) {
        const std::string& labels = e.inputs[i];
        for (size_t d = 0; d < labels.size(); ++d) {
            if (labels.find(labels[d]) != d || graph.value(node.inputs[i]).shape[d] != e.sizes.at(labels[d])) return false;
        }
    }
    return true;
}

}  // namespace

void lowerEinsum(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (node.kind != OpKind::Einsum || !isFloat(graph.value(node.inputs[0]).dtype)) return false;
        std::vector<Shape> shapes;
        for (ValueId id : node.inputs) shapes.push_back(graph.value(id).shape);
        const ops::EinsumEquation e = ops::parseEinsum(node, shapes);
        if (!isContraction(graph, node, e)) return false;
        EinsumLowering(rewriter, node, e).run();
        return true;
    });
}

}  // namespace npusim::compiler
