// Matrix ops: EyeLike (ones on diagonal k of a matrix shaped like the input, which it reads only
// the shape of: it folds to a constant) and Det (the determinant of each matrix of a batch, by
// Gaussian elimination with partial pivoting (the largest magnitude, the first of equals) in
// double, rounded once).
#include <cmath>
#include <string>
#include <utility>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/onnx_element_types.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// The dtype attribute (an ONNX element type), else the input's.
DType eyeLikeDType(const Node& node, DType input) {
    if (!node.attributes.contains("dtype")) return input;
    const int64_t code = node.intAttr("dtype", 0);
    const std::optional<DType> named = dtypeOfOnnxElementType(code);
    if (!named) opError(node, "dtype " + onnxElementTypeName(code) + " is not one npusim supports");
    return *named;
}

}  // namespace

void inferEyeLike(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    if (x.shape.size() != 2) opError(node, "input must be a matrix (rank 2), got " + shapeString(x.shape));
    setOutput(graph, node, eyeLikeDType(node, x.dtype), x.shape);
}

Tensor eyeLikeTensor(const Node& node, DType dtype, const Shape& shape) {
    const int64_t k = node.intAttr("k", 0);
    std::vector<int64_t> ones(static_cast<size_t>(elementCount(shape)), 0);
    for (int64_t row = 0; row < shape[0]; ++row) {
        if (row + k >= 0 && row + k < shape[1]) ones[row * shape[1] + row + k] = 1;
    }
    if (!isFloat(dtype)) return integerTensor(dtype, shape, ones);
    return floatTensor(dtype, shape, std::vector<double>(ones.begin(), ones.end()));
}

std::vector<Tensor> interpretEyeLike(const Node& node, std::span<const Tensor* const> inputs) {
    return {eyeLikeTensor(node, eyeLikeDType(node, inputs[0]->dtype), inputs[0]->shape)};
}

void inferDet(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, kFloatDTypes);
    const size_t rank = x.shape.size();
    if (rank < 2 || x.shape[rank - 1] != x.shape[rank - 2]) {
        opError(node, "X must be square matrices ([..., M, M]), got " + shapeString(x.shape));
    }
    setOutput(graph, node, x.dtype, Shape(x.shape.begin(), x.shape.end() - 2));
}

std::vector<Tensor> interpretDet(const Node&, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const int64_t m = x.shape.back();
    const Shape batch(x.shape.begin(), x.shape.end() - 2);
    const std::vector<double> values = floatValues(x);
    std::vector<double> determinants(static_cast<size_t>(elementCount(batch)));
    for (size_t b = 0; b < determinants.size(); ++b) {
        std::vector<double> a(values.begin() + static_cast<int64_t>(b) * m * m,
                              values.begin() + static_cast<int64_t>(b + 1) * m * m);
        double det = 1;
        for (int64_t col = 0; col < m; ++col) {
            int64_t pivot = col;
            for (int64_t row = col + 1; row < m; ++row) {
                if (std::fabs(a[row * m + col]) > std::fabs(a[pivot * m + col])) pivot = row;
            }
            if (pivot != col) {
                for (int64_t j = 0; j < m; ++j) std::swap(a[pivot * m + j], a[col * m + j]);
                det = -det;
            }
            det *= a[col * m + col];
            if (a[col * m + col] == 0) continue;  // det is 0 now, and stays 0
            for (int64_t row = col + 1; row < m; ++row) {
                const double factor = a[row * m + col] / a[col * m + col];
                for (int64_t j = col; j < m; ++j) a[row * m + j] -= factor * a[col * m + j];
            }
        }
        determinants[b] = det;
    }
    return {floatTensor(x.dtype, batch, determinants)};
}

}  // namespace npusim::compiler::ops
