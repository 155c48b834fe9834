// convolution-to-gemm: a Conv becomes, per group, an npusim.Im2Col of its input channels and a
// Gemm of the group's weights ([M/group, C/group * taps]) with those columns, the bias folded
// into the Gemm. Constant weights are cut at compile time; weights given at run time are
// reshaped (and sliced per group) by ops. The groups' results are joined, and the [M, N * P]
// product is laid out as Y [N, M, out...] (a reshape, and a transpose when N > 1).
#include <cstring>
#include <optional>
#include <string>

#include "compiler/graph/op_table.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

/// Rows [first, first + rows) of a constant, as a [rows, columns] matrix.
Tensor matrixRows(const Tensor& tensor, int64_t first, int64_t rows, int64_t columns) {
    Tensor out = Tensor::zeros(tensor.dtype, {rows, columns});
    const size_t bytes = out.bytes.size();
    std::memcpy(out.bytes.data(), tensor.bytes.data() + first * columns * dtypeSize(tensor.dtype), bytes);
    return out;
}

Tensor int64Tensor(const std::vector<int64_t>& values) {
    Tensor out = Tensor::zeros(DType::Int64, {static_cast<int64_t>(values.size())});
    std::memcpy(out.bytes.data(), values.data(), out.bytes.size());
    return out;
}

/// Cuts a [M, ...] operand (weights or bias) into per-group [M/groups, columns] matrices.
class GroupRows {
  public:
    GroupRows(GraphRewriter& rewriter, ValueId value, int64_t groups, int64_t columns, std::string name)
        : rewriter_(rewriter), value_(value), groups_(groups), columns_(columns), name_(std::move(name)) {
        const Value& v = rewriter.graph().value(value);
        rows_ = v.shape[0] / groups;
        if (!v.constant) {
            matrix_ = rewriter.add(OpKind::Reshape, name_ + ".reshape",
                                   {value, rewriter.constant(name_ + ".shape", int64Tensor({v.shape[0], columns}))})[0];
        }
    }

    ValueId group(int64_t g, const std::string& name) {
        const Value& v = rewriter_.graph().value(value_);
        if (v.constant) return rewriter_.constant(name, matrixRows(*v.constant, g * rows_, rows_, columns_));
        if (groups_ == 1) return matrix_;
        return rewriter_.add(OpKind::Slice, name,
                             {matrix_, rewriter_.constant(name + ".starts", int64Tensor({g * rows_})),
                              rewriter_.constant(name + ".ends", int64Tensor({(g + 1) * rows_})),
                              rewriter_.constant(name + ".axes", int64Tensor({0}))})[0];
    }

  private:
    GraphRewriter& rewriter_;
    ValueId value_;
    int64_t groups_, columns_, rows_ = 0;
    std::string name_;
    ValueId matrix_ = kNoValue;
};

void rewriteConv(GraphRewriter& rewriter, const Node& conv) {
    Graph& graph = rewriter.graph();
    const Shape x = graph.value(conv.inputs[0]).shape, y = graph.value(conv.outputs[0]).shape;
    const Shape w = graph.value(conv.inputs[1]).shape;
    const int64_t groups = conv.intAttr("group", 1), outChannels = w[0], groupChannels = w[1];
    const int64_t taps = elementCount(Shape(w.begin() + 2, w.end()));
    const bool hasBias = conv.inputs.size() > 2 && conv.inputs[2] != kNoValue;
    GroupRows weights(rewriter, conv.inputs[1], groups, groupChannels * taps, conv.name + ".weights");
    std::optional<GroupRows> biases;
    if (hasBias) biases.emplace(rewriter, conv.inputs[2], groups, 1, conv.name + ".bias");

    std::map<std::string, Attribute> window;
    for (const char* key : {"strides", "dilations", "pads", "auto_pad"}) {
        if (const auto it = conv.attributes.find(key); it != conv.attributes.end()) window.insert(*it);
    }
    window["kernel_shape"] = std::vector<int64_t>(w.begin() + 2, w.end());
    window["channels"] = groupChannels;

    std::vector<ValueId> products;
    for (int64_t g = 0; g < groups; ++g) {
        const std::string name = conv.name + (groups > 1 ? ".g" + std::to_string(g) : std::string());
        window["channel_begin"] = g * groupChannels;
        const ValueId columns = rewriter.add(OpKind::Im2Col, name + ".im2col", {conv.inputs[0]}, window)[0];
        std::vector<ValueId> operands = {weights.group(g, name + ".weights"), columns};
        if (biases) operands.push_back(biases->group(g, name + ".bias"));
        products.push_back(rewriter.add(OpKind::Gemm, name + ".gemm", operands)[0]);
    }
    ValueId product = products[0];
    if (groups > 1) product = rewriter.add(OpKind::Concat, conv.name + ".concat", products, {{"axis", int64_t{0}}})[0];
    // [M, N * P] -> [M, N, out...] -> Y [N, M, out...].
    Shape split = {outChannels, x[0]};
    split.insert(split.end(), y.begin() + 2, y.end());
    if (x[0] == 1) {
        rewriter.add(OpKind::Reshape, conv.name + ".reshape", {product, rewriter.constant(conv.name + ".shape", int64Tensor(y))},
                     {}, {conv.outputs[0]});
        return;
    }
    const ValueId reshaped = rewriter.add(OpKind::Reshape, conv.name + ".reshape",
                                          {product, rewriter.constant(conv.name + ".shape", int64Tensor(split))})[0];
    std::vector<int64_t> perm = {1, 0};
    for (size_t d = 2; d < y.size(); ++d) perm.push_back(static_cast<int64_t>(d));
    rewriter.add(OpKind::Transpose, conv.name + ".transpose", {reshaped}, {{"perm", perm}}, {conv.outputs[0]});
}

}  // namespace

void convolutionToGemm(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (node.kind != OpKind::Conv) return false;
        rewriteConv(rewriter, node);
        return true;
    });
}

}  // namespace npusim::compiler
