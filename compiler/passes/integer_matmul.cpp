// integer-matmul: zero points and requantisation the tensor unit does not take are spelled out
// in ops it does. The tensor unit subtracts constant per-tensor zero points itself; any other
// zero point (given at run time, per row or per column) uses
//   (A - za)(B - zb) = A B - za (1 B) - zb (A 1) + K za zb,
// the sums A 1 and 1 B being products with ones, exact in int32. A QLinearMatMul is that
// integer product, converted to fp32, scaled by a_scale * b_scale / y_scale (in fp32, as its
// reference does) and quantised with scale 1 and y_zero_point.
#include "compiler/passes/graph_pass.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

constexpr int64_t kOnnxFloat = 1, kOnnxInt32 = 6;  // TensorProto element types, for Cast's `to`

class Rewrite {
public:
    Rewrite(GraphRewriter& rewriter, const Node& node) : r_(rewriter), node_(node) {}

    const Value& value(ValueId id) const { return r_.graph().value(id); }
    bool present(size_t index) const { return index < node_.inputs.size() && node_.inputs[index] != kNoValue; }

    ValueId op(OpKind kind, const std::string& suffix, std::vector<ValueId> inputs,
               std::map<std::string, Attribute> attributes = {}, std::vector<ValueId> outputs = {}) {
        return r_.add(kind, node_.name + "." + suffix, std::move(inputs), std::move(attributes), std::move(outputs))[0];
    }
    ValueId cast(ValueId x, int64_t to, const std::string& suffix) {
        return op(OpKind::Cast, suffix, {x}, {{"to", to}});
    }
    /// A per-row (1-D, M elements) parameter as an [M, 1] column; a scalar as it is.
    ValueId column(ValueId x, const std::string& suffix) {
        const Shape& shape = value(x).shape;
        if (elementCount(shape) == 1) return x;
        return op(OpKind::Reshape, suffix, {x, r_.constant(node_.name + "." + suffix + ".shape", int64Tensor({shape[0], 1}))});
    }
    ValueId ones(DType dtype, Shape shape, const std::string& suffix) {
        Tensor t = Tensor::zeros(dtype, std::move(shape));
        for (std::byte& b : t.bytes) b = std::byte{1};  // int8 and uint8 ones
        return r_.constant(node_.name + "." + suffix, std::move(t));
    }

    /// (A - za)(B - zb) in int32; za, zb may be kNoValue. Writes `output` when given.
    ValueId integerProduct(ValueId a, ValueId b, ValueId za, ValueId zb, ValueId output = kNoValue) {
        auto scalarConstant = [&](ValueId z) {
            return z == kNoValue || (value(z).constant && elementCount(value(z).shape) == 1);
        };
        const std::vector<ValueId> out = output == kNoValue ? std::vector<ValueId>{} : std::vector<ValueId>{output};
        if (scalarConstant(za) && scalarConstant(zb)) {
            std::vector<ValueId> inputs = {a, b};
            if (za != kNoValue || zb != kNoValue) inputs.push_back(za);
            if (zb != kNoValue) inputs.push_back(zb);
            return op(OpKind::MatMulInteger, "product", inputs, {}, out);
        }
        const int64_t k = value(a).shape.back();
        ValueId result = op(OpKind::MatMulInteger, "product", {a, b});
        if (za != kNoValue) {  // - za (1 B)
            const ValueId colSums = op(OpKind::MatMulInteger, "column_sums", {ones(value(b).dtype, {1, k}, "ones_row"), b});
            const ValueId zaCol = column(cast(za, kOnnxInt32, "za"), "za_column");
            result = op(OpKind::Sub, "minus_za", {result, op(OpKind::Mul, "za_times_sums", {zaCol, colSums})});
        }
        if (zb != kNoValue) {  // - zb (A 1)
            const ValueId rowSums = op(OpKind::MatMulInteger, "row_sums", {a, ones(value(a).dtype, {k, 1}, "ones_column")});
            result = op(OpKind::Sub, "minus_zb", {result, op(OpKind::Mul, "zb_times_sums", {rowSums, cast(zb, kOnnxInt32, "zb")})});
        }
        if (za != kNoValue && zb != kNoValue) {  // + K za zb
            Tensor kTensor = Tensor::zeros(DType::Int32, {});
            kTensor.as<int32_t>()[0] = static_cast<int32_t>(k);
            const ValueId zaCol = column(cast(za, kOnnxInt32, "za2"), "za2_column");
            const ValueId both = op(OpKind::Mul, "za_zb", {zaCol, cast(zb, kOnnxInt32, "zb2")});
            const ValueId term = op(OpKind::Mul, "k_za_zb", {both, r_.constant(node_.name + ".k", std::move(kTensor))});
            result = op(OpKind::Add, "plus_k_za_zb", {result, term}, {}, out);
        } else if (output != kNoValue) {
            result = op(OpKind::Identity, "result", {result}, {}, out);
        }
        return result;
    }

    void qlinearMatMul() {
        const auto& in = node_.inputs;
        const ValueId product = integerProduct(in[0], in[3], in[2], in[5]);
        // a_scale[row] * b_scale[column] / y_scale, in fp32.
        const ValueId scales = op(OpKind::Mul, "scales", {column(in[1], "a_scale_column"), in[4]});
        const ValueId multiplier = op(OpKind::Div, "multiplier", {scales, in[6]});
        const ValueId scaled = op(OpKind::Mul, "rescale", {cast(product, kOnnxFloat, "to_float"), multiplier});
        Tensor one = Tensor::zeros(DType::Fp32, {});
        one.as<float>()[0] = 1.0f;
        op(OpKind::QuantizeLinear, "quantize", {scaled, r_.constant(node_.name + ".one", std::move(one)), in[7]}, {},
           {node_.outputs[0]});
    }

private:
    GraphRewriter& r_;
    const Node& node_;
};

bool needsRewrite(const Graph& graph, const Node& node) {
    if (node.kind == OpKind::QLinearMatMul) return true;
    if (node.kind != OpKind::MatMulInteger) return false;
    for (size_t index : {2, 3}) {
        if (index >= node.inputs.size() || node.inputs[index] == kNoValue) continue;
        const Value& z = graph.value(node.inputs[index]);
        if (!z.constant || elementCount(z.shape) != 1) return true;
    }
    return false;
}

}  // namespace

void decomposeIntegerMatMul(Graph& graph) {
    GraphRewriter rewriter(graph);
    rewriter.run([&](const Node& node) {
        if (!needsRewrite(rewriter.graph(), node)) return false;
        Rewrite rewrite(rewriter, node);
        if (node.kind == OpKind::QLinearMatMul) {
            rewrite.qlinearMatMul();
        } else {
            rewrite.integerProduct(node.inputs[0], node.inputs[1], rewrite.present(2) ? node.inputs[2] : kNoValue,
                                   rewrite.present(3) ? node.inputs[3] : kNoValue, node.outputs[0]);
        }
        return true;
    });
}

}  // namespace npusim::compiler
