// convolution-to-gemm: a Conv (but a depthwise one, which the vector unit runs whole) becomes, per group, an npusim.Im2Col of its input channels and a
// Gemm of the group's weights ([M/group, C/group * taps]) with those columns, the bias folded
// into the Gemm; the groups' products are joined and laid out as Y [N, M, out...] (a reshape,
// and when N > 1 an npusim.Reformat from the GEMM's channels-outermost layout). A ConvTranspose is the convolution of its input spread apart by
// its strides (Im2Col's input_dilations) with its kernel flipped (Im2Col's flip) and its
// weights' channel dims swapped. Constant weights are rearranged at compile time; weights given
// at run time are rearranged by ops. ConvInteger and QLinearConv pad with the input's zero point
// (so padding contributes nothing) and multiply with MatMulInteger, whose zero points the
// integer-matmul pass spells out where the tensor unit cannot take them; QLinearConv then adds
// its int32 bias and requantises per output channel as QLinearMatMul does.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "compiler/graph/conv_transpose.h"
#include "compiler/graph/convolution.h"
#include "compiler/graph/op_table.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

/// A convolution's operands as the rewrite needs them.
struct ConvParts {
    const Node& node;
    Shape x, w, y;
    int64_t groups = 1, inPerGroup = 0, outPerGroup = 0, taps = 0;
    bool transposed = false;
    /// Input indices of W and B (kNoValue-free only when present), and for the integer
    /// convolutions of the zero points; SIZE_MAX when the op has none.
    size_t weights = 1, bias = 2, xZero = SIZE_MAX, wZero = SIZE_MAX;
};

ConvParts convParts(const Graph& graph, const Node& node) {
    const bool qlinear = node.kind == OpKind::QLinearConv, integer = node.kind == OpKind::ConvInteger;
    const size_t weights = qlinear ? 3 : 1;
    ConvParts p{node, graph.value(node.inputs[0]).shape, graph.value(node.inputs[weights]).shape,
                graph.value(node.outputs[0]).shape};
    p.weights = weights;
    p.bias = qlinear ? 8 : integer ? SIZE_MAX : 2;
    p.xZero = qlinear ? 2 : integer ? 2 : SIZE_MAX;
    p.wZero = qlinear ? 5 : integer ? 3 : SIZE_MAX;
    p.transposed = node.kind == OpKind::ConvTranspose;
    p.groups = node.intAttr("group", 1);
    p.taps = elementCount(Shape(p.w.begin() + 2, p.w.end()));
    // Conv's W is [M, C/group, kernel...]; ConvTranspose's is [C, M/group, kernel...].
    p.inPerGroup = p.transposed ? p.w[0] / p.groups : p.w[1];
    p.outPerGroup = p.transposed ? p.w[1] : p.w[0] / p.groups;
    return p;
}

/// Group g's weights as the Gemm's [M/group, C/group * taps] operand: row m, column c * taps + t.
ValueId groupWeights(GraphRewriter& rewriter, const ConvParts& p, int64_t g, const std::string& name) {
    const Value& w = rewriter.graph().value(p.node.inputs[p.weights]);
    const int64_t rows = p.outPerGroup, cols = p.inPerGroup * p.taps;
    if (w.constant) {
        Tensor out = Tensor::zeros(w.dtype, {rows, cols});
        const size_t size = dtypeSize(w.dtype);
        for (int64_t m = 0; m < rows; ++m) {
            for (int64_t c = 0; c < p.inPerGroup; ++c) {
                // Conv: W[g * M/group + m, c]; ConvTranspose: W[g * C/group + c, m].
                const int64_t from = p.transposed ? ((g * p.inPerGroup + c) * p.outPerGroup + m) * p.taps
                                                  : ((g * rows + m) * p.inPerGroup + c) * p.taps;
                std::memcpy(out.bytes.data() + (m * cols + c * p.taps) * size, w.constant->bytes.data() + from * size,
                            static_cast<size_t>(p.taps) * size);
            }
        }
        return rewriter.constant(name, std::move(out));
    }
    // At run time: the group's slab of W (its rows along dim 0), as [rows0, rows1, taps].
    const int64_t slab = p.transposed ? p.inPerGroup : rows;
    ValueId value = rewriter.add(OpKind::Reshape, name + ".reshape",
                                 {p.node.inputs[p.weights], rewriter.constant(name + ".shape", int64Tensor({p.w[0], p.w[1], p.taps}))})[0];
    if (p.groups > 1) {
        value = rewriter.add(OpKind::Slice, name + ".slice",
                             {value, rewriter.constant(name + ".starts", int64Tensor({g * slab})),
                              rewriter.constant(name + ".ends", int64Tensor({(g + 1) * slab})),
                              rewriter.constant(name + ".axes", int64Tensor({0}))})[0];
    }
    if (p.transposed) {
        value = rewriter.add(OpKind::Transpose, name + ".transpose", {value}, {{"perm", std::vector<int64_t>{1, 0, 2}}})[0];
    }
    return rewriter.add(OpKind::Reshape, name + ".matrix",
                        {value, rewriter.constant(name + ".matrix_shape", int64Tensor({rows, cols}))})[0];
}

/// Elements [first, first + rows) of a 1-D per-output-channel operand (a bias, a weight zero
/// point or scale) as a [rows, 1] column.
ValueId channelColumn(GraphRewriter& rewriter, ValueId operand, int64_t first, int64_t rows, const std::string& name) {
    const Value& b = rewriter.graph().value(operand);
    if (b.constant) {
        Tensor out = Tensor::zeros(b.dtype, {rows, 1});
        std::memcpy(out.bytes.data(), b.constant->bytes.data() + first * dtypeSize(b.dtype), out.bytes.size());
        return rewriter.constant(name, std::move(out));
    }
    ValueId value = operand;
    if (rows != elementCount(b.shape)) {
        value = rewriter.add(OpKind::Slice, name + ".slice",
                             {operand, rewriter.constant(name + ".starts", int64Tensor({first})),
                              rewriter.constant(name + ".ends", int64Tensor({first + rows})),
                              rewriter.constant(name + ".axes", int64Tensor({0}))})[0];
    }
    return rewriter.add(OpKind::Reshape, name + ".column",
                        {value, rewriter.constant(name + ".shape", int64Tensor({rows, 1}))})[0];
}

/// Group g's part of a per-output-channel operand as a [M/group, 1] column.
ValueId groupColumn(GraphRewriter& rewriter, const ConvParts& p, ValueId operand, int64_t g, const std::string& name) {
    return channelColumn(rewriter, operand, g * p.outPerGroup, p.outPerGroup, name);
}

/// Im2Col's window attributes: the node's own for a Conv; for a ConvTranspose, those of the
/// equivalent convolution (stride 1 over the spread input, pads that give Y's size). nullopt
/// when that convolution would need negative pads.
std::optional<std::map<std::string, Attribute>> windowAttributes(const ConvParts& p) {
    std::map<std::string, Attribute> window;
    const std::vector<int64_t> kernel(p.w.begin() + 2, p.w.end());
    window["kernel_shape"] = kernel;
    window["channels"] = p.inPerGroup;
    if (!p.transposed) {
        for (const char* key : {"strides", "dilations", "pads", "auto_pad"}) {
            if (const auto it = p.node.attributes.find(key); it != p.node.attributes.end()) window.insert(*it);
        }
        return window;
    }
    const size_t rank = kernel.size();
    const std::vector<int64_t> strides = p.node.attributes.contains("strides")
                                             ? std::get<std::vector<int64_t>>(p.node.attributes.at("strides"))
                                             : std::vector<int64_t>(rank, 1);
    const std::vector<int64_t> dilations = p.node.attributes.contains("dilations")
                                               ? std::get<std::vector<int64_t>>(p.node.attributes.at("dilations"))
                                               : std::vector<int64_t>(rank, 1);
    const ConvTransposePads cut = convTransposePads(p.node, p.x, p.w);
    std::vector<int64_t> pads(2 * rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t reach = dilations[i] * (kernel[i] - 1), spread = (p.x[i + 2] - 1) * strides[i] + 1;
        pads[i] = reach - cut.begin[i];
        pads[rank + i] = p.y[i + 2] + reach - spread - pads[i];
        if (pads[i] < 0 || pads[rank + i] < 0) return std::nullopt;
    }
    window["dilations"] = dilations;
    window["input_dilations"] = strides;
    window["pads"] = pads;
    window["flip"] = int64_t{1};
    return window;
}

/// Rewrites the node; false (changing nothing) when it cannot.
/// The input at `index`, or kNoValue when the op has no such input or it is absent.
ValueId inputAt(const Node& node, size_t index) {
    return index < node.inputs.size() ? node.inputs[index] : kNoValue;
}

/// QLinearConv's requantisation of the [M, N * P] int32 product: x_scale * w_scale[m] / y_scale
/// per output channel, in fp32, then a quantise with scale 1 and y_zero_point.
ValueId requantize(GraphRewriter& rewriter, const ConvParts& p, ValueId product) {
    const Node& node = p.node;
    const std::string name = node.name;
    const ValueId wScale = elementCount(rewriter.graph().value(node.inputs[4]).shape) == 1
                               ? node.inputs[4]
                               : channelColumn(rewriter, node.inputs[4], 0, p.y[1], name + ".w_scale");
    const ValueId scales = rewriter.add(OpKind::Mul, name + ".scales", {node.inputs[1], wScale})[0];
    const ValueId multiplier = rewriter.add(OpKind::Div, name + ".multiplier", {scales, node.inputs[6]})[0];
    const ValueId real = rewriter.add(OpKind::Cast, name + ".to_float", {product}, {{"to", int64_t{1}}})[0];
    const ValueId scaled = rewriter.add(OpKind::Mul, name + ".rescale", {real, multiplier})[0];
    Tensor one = Tensor::zeros(DType::Fp32, {});
    one.as<float>()[0] = 1.0f;
    return rewriter.add(OpKind::QuantizeLinear, name + ".quantize",
                        {scaled, rewriter.constant(name + ".one", std::move(one)), node.inputs[7]})[0];
}

bool rewriteConvolution(GraphRewriter& rewriter, const Node& node) {
    const ConvParts p = convParts(rewriter.graph(), node);
    std::optional<std::map<std::string, Attribute>> window = windowAttributes(p);
    if (!window) return false;
    const ValueId bias = inputAt(node, p.bias), xZero = inputAt(node, p.xZero), wZero = inputAt(node, p.wZero);
    const bool integer = p.xZero != SIZE_MAX;
    std::vector<ValueId> products;
    for (int64_t g = 0; g < p.groups; ++g) {
        const std::string name = node.name + (p.groups > 1 ? ".g" + std::to_string(g) : std::string());
        (*window)["channel_begin"] = g * p.inPerGroup;
        std::vector<ValueId> im2colInputs = {node.inputs[0]};
        if (xZero != kNoValue) im2colInputs.push_back(xZero);  // padding reads the zero point
        const ValueId columns = rewriter.add(OpKind::Im2Col, name + ".im2col", im2colInputs, *window)[0];
        const ValueId weights = groupWeights(rewriter, p, g, name + ".weights");
        if (!integer) {
            std::vector<ValueId> operands = {weights, columns};
            if (bias != kNoValue) operands.push_back(groupColumn(rewriter, p, bias, g, name + ".bias"));
            products.push_back(rewriter.add(OpKind::Gemm, name + ".gemm", operands)[0]);
            continue;
        }
        ValueId wZeroGroup = wZero;
        if (wZero != kNoValue && elementCount(rewriter.graph().value(wZero).shape) > 1) {
            // MatMulInteger takes A's per-row zero point as [rows].
            const ValueId column = groupColumn(rewriter, p, wZero, g, name + ".w_zero_point");
            wZeroGroup = rewriter.add(OpKind::Reshape, name + ".w_zero_point.row",
                                      {column, rewriter.constant(name + ".w_zero_point.shape", int64Tensor({p.outPerGroup}))})[0];
        }
        ValueId product = rewriter.add(OpKind::MatMulInteger, name + ".matmul", {weights, columns, wZeroGroup, xZero})[0];
        if (bias != kNoValue) {
            product = rewriter.add(OpKind::Add, name + ".bias_add", {product, groupColumn(rewriter, p, bias, g, name + ".bias")})[0];
        }
        products.push_back(product);
    }
    ValueId product = products[0];
    if (p.groups > 1) product = rewriter.add(OpKind::Concat, node.name + ".concat", products, {{"axis", int64_t{0}}})[0];
    if (node.kind == OpKind::QLinearConv) product = requantize(rewriter, p, product);
    // [M, N * P] -> [M, N, out...] -> Y [N, M, out...].
    if (p.x[0] == 1) {
        rewriter.add(OpKind::Reshape, node.name + ".reshape",
                     {product, rewriter.constant(node.name + ".shape", int64Tensor(p.y))}, {}, {node.outputs[0]});
        return true;
    }
    Shape split = {p.y[1], p.x[0]};
    split.insert(split.end(), p.y.begin() + 2, p.y.end());
    const ValueId reshaped = rewriter.add(OpKind::Reshape, node.name + ".reshape",
                                          {product, rewriter.constant(node.name + ".shape", int64Tensor(split))})[0];
    // The GEMM writes channels outermost (C N spatial...); the Conv's readers take N C spatial...
    std::vector<int64_t> perm = {1, 0};
    for (size_t d = 2; d < p.y.size(); ++d) perm.push_back(static_cast<int64_t>(d));
    const std::string spatial = std::string("DHW").substr(3 - std::min<size_t>(3, p.y.size() - 2));
    rewriter.add(OpKind::Reformat, node.name + ".reformat", {reshaped},
                 {{"perm", perm}, {"from", "CN" + spatial}, {"to", "NC" + spatial}}, {node.outputs[0]});
    return true;
}

}  // namespace

void convolutionToGemm(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        const bool convolution = node.kind == OpKind::Conv || node.kind == OpKind::ConvTranspose ||
                                 node.kind == OpKind::ConvInteger || node.kind == OpKind::QLinearConv;
        // A depthwise convolution stays one op: the vector unit runs it whole.
        return convolution && !ops::isDepthwiseConvolution(rewriter.graph(), node) && rewriteConvolution(rewriter, node);
    });
}

}  // namespace npusim::compiler
