// Gemm: Y = alpha * A' * B' + beta * C, with A' and B' optionally transposed and C
// unidirectionally broadcast to [M, N].
#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

struct GemmLayout {
    bool transA = false, transB = false;
    int64_t m = 0, k = 0, n = 0;
    /// C's dims right-aligned to [M, N]; 1 where C broadcasts.
    int64_t cRows = 1, cCols = 1;
};

std::string operandText(std::string_view name, const Shape& shape, bool transposed) {
    std::string text = std::string(name) + " is " + shapeString(shape);
    if (transposed) {
        text += " (trans" + std::string(name) + "=1 -> " + shapeString({shape[1], shape[0]}) + ")";
    }
    return text;
}

GemmLayout gemmLayout(const Node& node, const Shape& a, const Shape& b, const Shape* c) {
    if (a.size() != 2) opError(node, "A must be 2-D, got " + shapeString(a));
    if (b.size() != 2) opError(node, "B must be 2-D, got " + shapeString(b));
    GemmLayout layout;
    layout.transA = node.intAttr("transA", 0) != 0;
    layout.transB = node.intAttr("transB", 0) != 0;
    layout.m = layout.transA ? a[1] : a[0];
    layout.k = layout.transA ? a[0] : a[1];
    layout.n = layout.transB ? b[0] : b[1];
    const int64_t kOfB = layout.transB ? b[1] : b[0];
    if (layout.k != kOfB) {
        opError(node, "inner dimensions differ: " + operandText("A", a, layout.transA) + " but " +
                          operandText("B", b, layout.transB));
    }
    if (c == nullptr) return layout;
    if (c->size() <= 2) {
        layout.cCols = c->empty() ? 1 : c->back();
        layout.cRows = c->size() == 2 ? (*c)[0] : 1;
    }
    const bool broadcasts = c->size() <= 2 && (layout.cRows == 1 || layout.cRows == layout.m) &&
                            (layout.cCols == 1 || layout.cCols == layout.n);
    if (!broadcasts) {
        opError(node, "C is " + shapeString(*c) + ", which does not broadcast to the output " +
                          shapeString({layout.m, layout.n}) +
                          " (allowed: [], [1], [N], [1,N], [M,1], [M,N])");
    }
    return layout;
}

}  // namespace

void inferGemm(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& a = graph.value(node.inputs[0]);
    const Value& b = graph.value(node.inputs[1]);
    const Value* c = optionalInput(graph, node, 2);
    requireDType(node, "A", a.dtype, {DType::Fp32, DType::Fp16, DType::Bf16});
    requireSameDType(node, "A", a.dtype, "B", b.dtype);
    // C is of A's type, or fp32 beside 16-bit operands: a bias added in the fp32 accumulator.
    if (c && c->dtype != DType::Fp32) requireSameDType(node, "A", a.dtype, "C", c->dtype);
    const GemmLayout layout = gemmLayout(node, a.shape, b.shape, c ? &c->shape : nullptr);
    setOutput(graph, node, floatProductType(node, a.dtype), {layout.m, layout.n});
}

std::vector<Tensor> interpretGemm(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& a = *inputs[0];
    const Tensor& b = *inputs[1];
    const Tensor* c = inputs.size() > 2 ? inputs[2] : nullptr;
    for (const Tensor* operand : inputs) {
        if (operand && !isFloat(operand->dtype)) {
            opError(node, "operands must be floats, got " + std::string(dtypeName(operand->dtype)));
        }
    }
    const GemmLayout layout = gemmLayout(node, a.shape, b.shape, c ? &c->shape : nullptr);
    const auto alpha = static_cast<float>(node.floatAttr("alpha", 1.0));
    const auto beta = static_cast<float>(node.floatAttr("beta", 1.0));
    // 16-bit operands widen exactly; the products are summed in fp32 and rounded once.
    const std::vector<float> aData = widenedFloats(a), bData = widenedFloats(b);
    const std::vector<float> cData = c ? widenedFloats(*c) : std::vector<float>();
    const int64_t m = layout.m, k = layout.k, n = layout.n;

    Tensor out = Tensor::zeros(DType::Fp32, {m, n});
    const std::span<float> y = out.as<float>();
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            float product = 0;
            for (int64_t p = 0; p < k; ++p) {
                const float aValue = layout.transA ? aData[p * m + i] : aData[i * k + p];
                const float bValue = layout.transB ? bData[j * k + p] : bData[p * n + j];
                product += aValue * bValue;
            }
            float value = alpha * product;
            if (c) {
                const int64_t row = layout.cRows == 1 ? 0 : i;
                const int64_t col = layout.cCols == 1 ? 0 : j;
                value += beta * cData[row * layout.cCols + col];
            }
            y[i * n + j] = value;
        }
    }
    const DType result = floatProductType(node, a.dtype);
    if (result == DType::Fp32) return {std::move(out)};
    const std::span<const float> sums = out.as<float>();
    return {floatTensor(result, {m, n}, std::vector<double>(sums.begin(), sums.end()))};
}

}  // namespace npusim::compiler::ops
