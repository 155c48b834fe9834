// arg-extreme-to-reductions: ArgMax and ArgMin of fp32 or int32 data become reductions the
// vector unit runs. With m the extreme along the axis (kept) and e = (x == m) as 1 or 0,
//   first index:  min over the axis of  D - e * (D - i)   (D where e is 0)
//   last index:   max over the axis of  e * (i + 1) - 1   (-1 where e is 0)
// for i the position along the axis (a constant) and D the axis' size; the index is then
// converted to int64.
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

constexpr int64_t kOnnxInt32 = 6, kOnnxInt64 = 7;  // TensorProto element types, for Cast's `to`

Tensor int32Scalar(int32_t value) {
    Tensor t = Tensor::zeros(DType::Int32, {});
    t.as<int32_t>()[0] = value;
    return t;
}

void rewrite(GraphRewriter& r, const Node& node) {
    const Shape& shape = r.graph().value(node.inputs[0]).shape;
    const auto rank = static_cast<int64_t>(shape.size());
    int64_t axis = node.intAttr("axis", 0);
    if (axis < 0) axis += rank;
    const int64_t keepdims = node.intAttr("keepdims", 1);
    const bool last = node.intAttr("select_last_index", 0) != 0;
    const bool max = node.kind == OpKind::ArgMax;
    const int64_t size = shape[static_cast<size_t>(axis)];
    const std::string& n = node.name;
    const auto add = [&](OpKind kind, const std::string& suffix, std::vector<ValueId> inputs,
                         std::map<std::string, Attribute> attributes = {}) {
        return r.add(kind, n + "." + suffix, std::move(inputs), std::move(attributes))[0];
    };
    // Positions along the axis, shaped to broadcast against the data.
    Shape positionsShape(shape.size(), 1);
    positionsShape[static_cast<size_t>(axis)] = size;
    Tensor positions = Tensor::zeros(DType::Int32, positionsShape);
    for (int64_t i = 0; i < size; ++i) positions.as<int32_t>()[i] = static_cast<int32_t>(last ? i + 1 : size - i);
    const std::vector<int64_t> axes = {axis};
    const ValueId extreme = add(max ? OpKind::ReduceMax : OpKind::ReduceMin, "extreme", {node.inputs[0]},
                                {{"axes", axes}, {"keepdims", int64_t{1}}});
    const ValueId hit = add(OpKind::Cast, "hit", {add(OpKind::Equal, "equal", {node.inputs[0], extreme})},
                            {{"to", kOnnxInt32}});
    // first: D - e * (D - i); last: e * (i + 1) - 1. `positions` holds D - i or i + 1.
    const ValueId weighted = add(OpKind::Mul, "weighted", {hit, r.constant(n + ".positions", std::move(positions))});
    const ValueId candidates =
        last ? add(OpKind::Sub, "candidates", {weighted, r.constant(n + ".one", int32Scalar(1))})
             : add(OpKind::Sub, "candidates",
                   {r.constant(n + ".size", int32Scalar(static_cast<int32_t>(size))), weighted});
    const ValueId index = add(last ? OpKind::ReduceMax : OpKind::ReduceMin, "index", {candidates},
                              {{"axes", axes}, {"keepdims", keepdims}});
    r.add(OpKind::Cast, n + ".to_int64", {index}, {{"to", kOnnxInt64}}, {node.outputs[0]});
}

}  // namespace

void argExtremeToReductions(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (node.kind != OpKind::ArgMax && node.kind != OpKind::ArgMin) return false;
        const DType dtype = rewriter.graph().value(node.inputs[0]).dtype;
        if (dtype != DType::Fp32 && dtype != DType::Int32) return false;
        rewrite(rewriter, node);
        return true;
    });
}

}  // namespace npusim::compiler
