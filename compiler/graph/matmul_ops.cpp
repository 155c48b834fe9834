// MatMul, MatMulInteger and QLinearMatMul: ONNX batched matrix products with numpy-style
// broadcasting of the leading (batch) dimensions and 1-D operands promoted to a row (A) or a
// column (B).
#include <algorithm>
#include <cstdint>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/quantization.h"

namespace npusim::compiler::ops {
namespace {

/// How a batched product reads its operands: A is [..., M, K] and B is [..., K, N] once 1-D
/// operands are promoted; the output is the broadcast batch shape followed by [M, N], without M
/// (N) when A (B) was 1-D.
struct MatMulLayout {
    int64_t m = 1, k = 1, n = 1;
    Shape output;
    /// For each output matrix, in row-major order of the batch dims, the A and B matrix it reads.
    std::vector<int64_t> aMatrix, bMatrix;
};

Shape batchDims(const Shape& shape) {
    return shape.size() <= 2 ? Shape{} : Shape(shape.begin(), shape.end() - 2);
}

MatMulLayout matMulLayout(const Node& node, const Shape& a, const Shape& b) {
    if (a.empty() || b.empty()) {
        opError(node, "operands must have rank >= 1, but A is " + shapeString(a) + " and B is " +
                          shapeString(b));
    }
    MatMulLayout layout;
    layout.m = a.size() == 1 ? 1 : a[a.size() - 2];
    layout.k = a.back();
    layout.n = b.size() == 1 ? 1 : b.back();
    const int64_t kOfB = b.size() == 1 ? b[0] : b[b.size() - 2];
    if (layout.k != kOfB) {
        opError(node,
                "inner dimensions differ: A is " + shapeString(a) + " but B is " + shapeString(b));
    }

    const Shape aBatch = batchDims(a), bBatch = batchDims(b);
    const size_t rank = std::max(aBatch.size(), bBatch.size());
    Shape batch(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t aDim = i < rank - aBatch.size() ? 1 : aBatch[i - (rank - aBatch.size())];
        const int64_t bDim = i < rank - bBatch.size() ? 1 : bBatch[i - (rank - bBatch.size())];
        if (aDim != bDim && aDim != 1 && bDim != 1) {
            opError(node, "batch dimensions do not broadcast: A is " + shapeString(a) +
                              " and B is " + shapeString(b));
        }
        batch[i] = aDim == 1 ? bDim : aDim;
    }

    layout.output = batch;
    if (a.size() > 1) layout.output.push_back(layout.m);
    if (b.size() > 1) layout.output.push_back(layout.n);

    const std::vector<int64_t> aStrides = broadcastStrides(aBatch, rank);
    const std::vector<int64_t> bStrides = broadcastStrides(bBatch, rank);
    const int64_t count = elementCount(batch);
    for (int64_t flat = 0; flat < count; ++flat) {
        int64_t rest = flat, aIndex = 0, bIndex = 0;
        for (size_t i = rank; i-- > 0;) {
            const int64_t index = rest % batch[i];
            rest /= batch[i];
            aIndex += index * aStrides[i];
            bIndex += index * bStrides[i];
        }
        layout.aMatrix.push_back(aIndex);
        layout.bMatrix.push_back(bIndex);
    }
    return layout;
}

/// out[i][j] = sum over k, in order, of a[i][k] * b[k][j], accumulated in Acc.
template <class T, class Acc, class Out>
void batchedProduct(const MatMulLayout& layout, std::span<const T> a, std::span<const T> b,
                    std::span<Out> out) {
    const int64_t m = layout.m, k = layout.k, n = layout.n;
    for (size_t batch = 0; batch < layout.aMatrix.size(); ++batch) {
        const T* aMatrix = a.data() + layout.aMatrix[batch] * m * k;
        const T* bMatrix = b.data() + layout.bMatrix[batch] * k * n;
        Out* outMatrix = out.data() + static_cast<int64_t>(batch) * m * n;
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                Acc sum = 0;
                for (int64_t p = 0; p < k; ++p) {
                    sum +=
                        static_cast<Acc>(aMatrix[i * k + p]) * static_cast<Acc>(bMatrix[p * n + j]);
                }
                outMatrix[i * n + j] = static_cast<Out>(sum);
            }
        }
    }
}

/// Checks a MatMulInteger zero point: one element per tensor, or one per row of A (`dim` = M)
/// or per column of B (`dim` = N).
void checkZeroPoint(const Node& node, std::string_view operand, const Shape& shape,
                    std::string_view dimName, int64_t dim) {
    const bool perTensor = shape.size() <= 1 && elementCount(shape) == 1;
    const bool perRow = shape.size() == 1 && shape[0] == dim;
    if (!perTensor && !perRow) {
        opError(node, std::string(operand) + " must have shape [], [1] or [" +
                          std::string(dimName) + "]=[" + std::to_string(dim) + "], got " +
                          shapeString(shape));
    }
}

/// The zero point of each of `count` rows (of A) or columns (of B); 0 when absent.
std::vector<int32_t> zeroPoints(const Tensor* zeroPoint, int64_t count) {
    std::vector<int32_t> points(static_cast<size_t>(count), 0);
    if (zeroPoint == nullptr) return points;
    for (int64_t i = 0; i < count; ++i) {
        const int64_t index = zeroPoint->elementCount() == 1 ? 0 : i;
        points[i] = static_cast<int32_t>(zeroPoint->valueAt(index));
    }
    return points;
}

/// The int32 products of A and B with their zero points (per tensor, per row of A or per column
/// of B; none when absent) removed: both operands are widened to int32 and multiplied like the
/// integer MatMul (the tensor unit's int8 path accumulates in int32).
Tensor integerProduct(const MatMulLayout& layout, const Tensor& a, const Tensor* aZero,
                      const Tensor& b, const Tensor* bZero) {
    const std::vector<int32_t> rowZero = zeroPoints(aZero, layout.m);
    const std::vector<int32_t> columnZero = zeroPoints(bZero, layout.n);
    std::vector<int32_t> aWide(a.elementCount()), bWide(b.elementCount());
    for (int64_t i = 0; i < a.elementCount(); ++i) {
        aWide[i] = static_cast<int32_t>(a.valueAt(i)) - rowZero[(i / layout.k) % layout.m];
    }
    for (int64_t i = 0; i < b.elementCount(); ++i) {
        bWide[i] = static_cast<int32_t>(b.valueAt(i)) - columnZero[i % layout.n];
    }
    Tensor out = Tensor::zeros(DType::Int32, layout.output);
    batchedProduct<int32_t, uint32_t>(layout, std::span<const int32_t>(aWide),
                                      std::span<const int32_t>(bWide), out.as<int32_t>());
    return out;
}

/// QLinearMatMul's scales and zero points: A's per tensor or per row, B's per tensor or per
/// column, the output's per tensor.
void checkQLinearParams(const Node& node, const MatMulLayout& layout, const Shape& aScale,
                        const Shape& aZero, const Shape& bScale, const Shape& bZero,
                        const Shape& yScale, const Shape& yZero) {
    const std::string rows = "the rows of a (M)", columns = "the columns of b (N)";
    checkQuantParam(node, "a_scale", aScale, layout.m, rows);
    checkQuantParam(node, "a_zero_point", aZero, layout.m, rows);
    checkQuantParam(node, "b_scale", bScale, layout.n, columns);
    checkQuantParam(node, "b_zero_point", bZero, layout.n, columns);
    checkQuantParam(node, "y_scale", yScale);
    checkQuantParam(node, "y_zero_point", yZero);
}

}  // namespace

void inferMatMul(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& a = graph.value(node.inputs[0]);
    const Value& b = graph.value(node.inputs[1]);
    requireDType(node, "A", a.dtype, {DType::Fp32, DType::Fp16, DType::Bf16, DType::Int32});
    requireSameDType(node, "A", a.dtype, "B", b.dtype);
    const DType result = isFloat(a.dtype) ? floatProductType(node, a.dtype) : a.dtype;
    setOutput(graph, node, result, matMulLayout(node, a.shape, b.shape).output);
}

std::vector<Tensor> interpretMatMul(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& a = *inputs[0];
    const Tensor& b = *inputs[1];
    const MatMulLayout layout = matMulLayout(node, a.shape, b.shape);
    Tensor out = Tensor::zeros(a.dtype, layout.output);
    if (a.dtype == DType::Fp32 && b.dtype == DType::Fp32) {
        batchedProduct<float, float>(layout, a.as<float>(), b.as<float>(), out.as<float>());
    } else if (isFloat(a.dtype) && a.dtype == b.dtype) {
        // 16-bit floats: products summed in fp32, as the tensor unit accumulates them, and the
        // sums rounded once to the operands' format.
        const std::vector<float> aWide = widenedFloats(a), bWide = widenedFloats(b);
        std::vector<float> sums(static_cast<size_t>(out.elementCount()));
        batchedProduct<float, float>(layout, std::span<const float>(aWide), std::span<const float>(bWide),
                                     std::span<float>(sums));
        out = floatTensor(floatProductType(node, a.dtype), layout.output, std::vector<double>(sums.begin(), sums.end()));
    } else if (a.dtype == DType::Int32 && b.dtype == DType::Int32) {
        // int32 products and sums wrap modulo 2^32, as two's complement hardware does.
        batchedProduct<int32_t, uint32_t>(layout, a.as<int32_t>(), b.as<int32_t>(),
                                          out.as<int32_t>());
    } else {
        opError(node, "cannot multiply " + std::string(dtypeName(a.dtype)) + " by " +
                          std::string(dtypeName(b.dtype)));
    }
    return {std::move(out)};
}

void inferMatMulInteger(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& a = graph.value(node.inputs[0]);
    const Value& b = graph.value(node.inputs[1]);
    requireDType(node, "A", a.dtype, {DType::Int8, DType::UInt8});
    requireDType(node, "B", b.dtype, {DType::Int8, DType::UInt8});
    const MatMulLayout layout = matMulLayout(node, a.shape, b.shape);
    const auto checkPoint = [&](size_t index, std::string_view name, const Value& operand,
                                std::string_view operandName, std::string_view dimName,
                                int64_t dim) {
        const Value* zeroPoint = optionalInput(graph, node, index);
        if (zeroPoint == nullptr) return;
        if (zeroPoint->dtype != operand.dtype) {
            opError(node, std::string(name) + " is " + std::string(dtypeName(zeroPoint->dtype)) +
                              " but " + std::string(operandName) + " is " +
                              std::string(dtypeName(operand.dtype)) +
                              "; they must have the same dtype");
        }
        checkZeroPoint(node, name, zeroPoint->shape, dimName, dim);
    };
    checkPoint(2, "a_zero_point", a, "A", "M", layout.m);
    checkPoint(3, "b_zero_point", b, "B", "N", layout.n);
    setOutput(graph, node, DType::Int32, layout.output);
}

std::vector<Tensor> interpretMatMulInteger(const Node& node,
                                           std::span<const Tensor* const> inputs) {
    const Tensor& a = *inputs[0];
    const Tensor& b = *inputs[1];
    const Tensor* aZero = inputs.size() > 2 ? inputs[2] : nullptr;
    const Tensor* bZero = inputs.size() > 3 ? inputs[3] : nullptr;
    for (const Tensor* operand : inputs) {
        if (operand && operand->dtype != DType::Int8 && operand->dtype != DType::UInt8) {
            opError(node, "operands must be int8 or uint8, got " +
                              std::string(dtypeName(operand->dtype)));
        }
    }
    const MatMulLayout layout = matMulLayout(node, a.shape, b.shape);
    if (aZero) checkZeroPoint(node, "a_zero_point", aZero->shape, "M", layout.m);
    if (bZero) checkZeroPoint(node, "b_zero_point", bZero->shape, "N", layout.n);
    return {integerProduct(layout, a, aZero, b, bZero)};
}

void inferQLinearMatMul(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const auto input = [&](size_t index) -> const Value& {
        return graph.value(node.inputs[index]);
    };
    const Value &a = input(0), &aScale = input(1), &aZero = input(2);
    const Value &b = input(3), &bScale = input(4), &bZero = input(5);
    const Value &yScale = input(6), &yZero = input(7);
    requireDType(node, "a", a.dtype, {DType::Int8, DType::UInt8});
    requireDType(node, "b", b.dtype, {DType::Int8, DType::UInt8});
    requireDType(node, "y_zero_point", yZero.dtype, {DType::Int8, DType::UInt8});
    checkZeroPointDType(node, "a_zero_point", aZero.dtype, "a", a.dtype);
    checkZeroPointDType(node, "b_zero_point", bZero.dtype, "b", b.dtype);
    requireDType(node, "a_scale", aScale.dtype, {DType::Fp32});
    requireDType(node, "b_scale", bScale.dtype, {DType::Fp32});
    requireDType(node, "y_scale", yScale.dtype, {DType::Fp32});
    const MatMulLayout layout = matMulLayout(node, a.shape, b.shape);
    checkQLinearParams(node, layout, aScale.shape, aZero.shape, bScale.shape, bZero.shape,
                       yScale.shape, yZero.shape);
    setOutput(graph, node, yZero.dtype, layout.output);
}

std::vector<Tensor> interpretQLinearMatMul(const Node& node,
                                           std::span<const Tensor* const> inputs) {
    const Tensor &a = *inputs[0], &aScale = *inputs[1], &aZero = *inputs[2];
    const Tensor &b = *inputs[3], &bScale = *inputs[4], &bZero = *inputs[5];
    const Tensor &yScale = *inputs[6], &yZero = *inputs[7];
    const MatMulLayout layout = matMulLayout(node, a.shape, b.shape);
    checkQLinearParams(node, layout, aScale.shape, aZero.shape, bScale.shape, bZero.shape,
                       yScale.shape, yZero.shape);
    const Tensor sums = integerProduct(layout, a, &aZero, b, &bZero);

    // Each accumulator is rescaled by a_scale[row] * b_scale[column] / y_scale, in fp32.
    const auto offset = static_cast<int32_t>(yZero.valueAt(0));
    Tensor out = Tensor::zeros(yZero.dtype, layout.output);
    const std::span<const int32_t> acc = sums.as<int32_t>();
    for (int64_t i = 0; i < out.elementCount(); ++i) {
        const int64_t row = (i / layout.n) % layout.m, column = i % layout.n;
        const float multiplier =
            scaleAt(aScale, row) * scaleAt(bScale, column) / scaleAt(yScale, 0);
        storeQuantized(out, i,
                       quantizeRounded(static_cast<float>(acc[i]) * multiplier, offset, out.dtype));
    }
    return {std::move(out)};
}

}  // namespace npusim::compiler::ops
