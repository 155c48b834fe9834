// max-pool-indices: MaxPool's optional Indices output, the flat input index of each window's
// first maximum, computed from ops the NPU runs. The windows are an Im2Col of X padded with
// -inf, reshaped to [C, taps, N * positions]; ArgMax over the taps gives the winning tap t;
// the tap's kernel position k (t in row-major kernel order) and each column's window origin
// give the index:
//   index = (n * C + c) * plane + sum_i (origin_i + k_i * dilation_i) * stride_i
// with stride_i the spatial strides of X (column-major ones for storage_order 1), origin_i =
// o_i * step_i - pad_i. The window origins and the (n, c) planes form one constant; the tap's
// part is integer arithmetic. The result is laid out [N, C, out...] as int64.
#include <climits>
#include <cstring>
#include <limits>

#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/window_geometry.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

using ops::forEachPosition;
using ops::intListAttr;
using ops::WindowGeometry;
using ops::windowGeometry;

constexpr int64_t kOnnxInt32 = 6, kOnnxInt64 = 7;  // TensorProto element types, for Cast's `to`

Tensor int32Scalar(int32_t value) {
    Tensor t = Tensor::zeros(DType::Int32, {});
    t.as<int32_t>()[0] = value;
    return t;
}

/// X's spatial strides in the order MaxPool reports indices: row-major, or column-major.
std::vector<int64_t> spatialStrides(const Shape& spatial, bool columnMajor) {
    std::vector<int64_t> strides(spatial.size(), 1);
    if (columnMajor) {
        for (size_t i = 1; i < spatial.size(); ++i) strides[i] = strides[i - 1] * spatial[i - 1];
    } else {
        for (size_t i = spatial.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * spatial[i + 1];
    }
    return strides;
}

bool rewrite(GraphRewriter& r, const Node& node) {
    // Copies: adding nodes grows the value table.
    const Value x = r.graph().value(node.inputs[0]);
    if (x.dtype != DType::Fp32 || node.intAttr("ceil_mode", 0) != 0) return false;
    const Shape shape = x.shape;
    if (elementCount(shape) > INT32_MAX) return false;  // the indices are computed in int32
    const int64_t batch = shape[0], channels = shape[1];
    const Shape spatial(shape.begin() + 2, shape.end());
    const WindowGeometry g = windowGeometry(node, spatial, intListAttr(node, "kernel_shape"), false);
    const int64_t taps = elementCount(g.kernel), positions = elementCount(g.output), plane = elementCount(spatial);
    const std::string& n = node.name;
    const auto add = [&](OpKind kind, const std::string& suffix, std::vector<ValueId> inputs,
                         std::map<std::string, Attribute> attributes = {}) {
        return r.add(kind, n + "." + suffix, std::move(inputs), std::move(attributes))[0];
    };

    std::map<std::string, Attribute> values = node.attributes;
    values.erase("storage_order");
    r.add(OpKind::MaxPool, n, {node.inputs[0]}, values, {node.outputs[0]});

    // The windows, padding never winning.
    std::map<std::string, Attribute> window;
    for (const char* key : {"kernel_shape", "strides", "dilations", "pads", "auto_pad"}) {
        if (const auto it = node.attributes.find(key); it != node.attributes.end()) window.insert(*it);
    }
    window["channels"] = channels;
    Tensor lowest = Tensor::zeros(DType::Fp32, {});
    lowest.as<float>()[0] = -std::numeric_limits<float>::infinity();
    const ValueId columns = add(OpKind::Im2Col, "windows", {node.inputs[0], r.constant(n + ".lowest", std::move(lowest))}, window);
    const ValueId grouped = add(OpKind::Reshape, "by_tap",
                                {columns, r.constant(n + ".by_tap_shape", int64Tensor({channels, taps, batch * positions}))});
    const ValueId tap64 = add(OpKind::ArgMax, "tap", {grouped}, {{"axis", int64_t{1}}, {"keepdims", int64_t{0}}});
    ValueId rest = add(OpKind::Cast, "tap_int32", {tap64}, {{"to", kOnnxInt32}});

    // The tap's offset from its window's origin: k_i = (t / kernel stride_i) % K_i, last dim first.
    const std::vector<int64_t> strides = spatialStrides(spatial, node.intAttr("storage_order", 0) == 1);
    ValueId offset = kNoValue;
    for (size_t i = g.kernel.size(); i-- > 0;) {
        const std::string axis = std::to_string(i);
        const int64_t size = g.kernel[i];
        const ValueId kernelSize = r.constant(n + ".kernel" + axis, int32Scalar(static_cast<int32_t>(size)));
        const ValueId quotient = add(OpKind::Div, "tap_div" + axis, {rest, kernelSize});
        const ValueId scaled = add(OpKind::Mul, "tap_scaled" + axis, {quotient, kernelSize});
        const ValueId k = add(OpKind::Sub, "tap_k" + axis, {rest, scaled});
        const int32_t step = static_cast<int32_t>(g.dilations[i] * strides[i]);
        const ValueId part = add(OpKind::Mul, "tap_offset" + axis, {k, r.constant(n + ".step" + axis, int32Scalar(step))});
        offset = offset == kNoValue ? part : add(OpKind::Add, "tap_sum" + axis, {offset, part});
        rest = quotient;
    }

    // Each column's plane and window origin.
    Tensor origins = Tensor::zeros(DType::Int32, {channels, batch * positions});
    int32_t* out = origins.as<int32_t>().data();
    for (int64_t c = 0; c < channels; ++c) {
        for (int64_t b = 0; b < batch; ++b) {
            int64_t position = 0;
            forEachPosition(g.output, [&](const std::vector<int64_t>& o) {
                int64_t index = (b * channels + c) * plane;
                for (size_t i = 0; i < o.size(); ++i) index += (o[i] * g.strides[i] - g.padBegin[i]) * strides[i];
                out[(c * batch + b) * positions + position++] = static_cast<int32_t>(index);
            });
        }
    }
    const ValueId index = add(OpKind::Add, "index", {r.constant(n + ".origins", std::move(origins)), offset});
    const ValueId index64 = add(OpKind::Cast, "index_int64", {index}, {{"to", kOnnxInt64}});
    Shape split = {channels, batch};
    split.insert(split.end(), g.output.begin(), g.output.end());
    const ValueId planes = add(OpKind::Reshape, "planes", {index64, r.constant(n + ".planes_shape", int64Tensor(split))});
    std::vector<int64_t> perm = {1, 0};
    for (size_t d = 2; d < split.size(); ++d) perm.push_back(static_cast<int64_t>(d));
    r.add(OpKind::Transpose, n + ".indices", {planes}, {{"perm", perm}}, {node.outputs[1]});
    return true;
}

}  // namespace

void computeMaxPoolIndices(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        const bool indices = node.kind == OpKind::MaxPool && node.outputs.size() > 1 && node.outputs[1] != kNoValue;
        return indices && rewrite(rewriter, node);
    });
}

}  // namespace npusim::compiler
