// Trilu: the upper (upper=1, the default) or lower triangle of each matrix in the last two
// axes, elements outside it set to zero. Diagonal k (input 1, default 0) shifts the border:
// upper keeps column - row >= k, lower keeps column - row <= k.
#include <algorithm>
#include <cstring>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

void checkMatrices(const Node& node, const Shape& input) {
    if (input.size() < 2) opError(node, "input must have rank >= 2, got " + shapeString(input));
}

int64_t diagonal(const Node& node, const Tensor* k) {
    if (k == nullptr) return 0;
    requireDType(node, "k", k->dtype, {DType::Int64});
    if (k->elementCount() != 1) opError(node, "k must be a scalar, got " + shapeString(k->shape));
    return integerValues(*k)[0];
}

}  // namespace

void inferTrilu(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& input = graph.value(node.inputs[0]);
    checkMatrices(node, input.shape);
    if (const Value* k = optionalInput(graph, node, 1)) {
        requireDType(node, "k", k->dtype, {DType::Int64});
    }
    setOutput(graph, node, input.dtype, input.shape);
}

std::vector<Tensor> interpretTrilu(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& input = *inputs[0];
    checkMatrices(node, input.shape);
    const int64_t k = diagonal(node, inputs.size() > 1 ? inputs[1] : nullptr);
    const bool upper = node.intAttr("upper", 1) != 0;
    const int64_t rows = input.shape[input.shape.size() - 2], columns = input.shape.back();
    const size_t size = dtypeSize(input.dtype);
    Tensor out = input;
    for (int64_t i = 0; i < input.elementCount(); ++i) {
        const int64_t column = i % columns, row = i / columns % rows;
        const bool kept = upper ? column - row >= k : column - row <= k;
        // Zero bytes are zero, false or +0.0 in every dtype.
        if (!kept) std::memset(out.bytes.data() + i * size, 0, size);
    }
    return {std::move(out)};
}

std::optional<std::vector<StridedCopy>> triluCopies(const Graph& graph, const Node& node) {
    const Value* kValue = optionalInput(graph, node, 1);
    if (kValue && !kValue->constant) return std::nullopt;
    const int64_t k = diagonal(node, kValue ? &*kValue->constant : nullptr);
    const bool upper = node.intAttr("upper", 1) != 0;
    const Value& input = graph.value(node.inputs[0]);
    const Shape& shape = input.shape;
    const int64_t rows = shape[shape.size() - 2], columns = shape.back();
    // Per row of the matrices (all batches at once): the kept columns are copied, the others
    // filled with zero.
    const Shape batch(shape.begin(), shape.end() - 2);
    const std::vector<int64_t> strides = rowMajorStrides(shape);
    const std::vector<int64_t> batchStrides(strides.begin(), strides.end() - 2);
    std::vector<StridedCopy> copies;
    for (int64_t row = 0; row < rows; ++row) {
        const int64_t first = upper ? std::clamp<int64_t>(row + k, 0, columns) : 0;
        const int64_t end = upper ? columns : std::clamp<int64_t>(row + k + 1, 0, columns);
        const auto piece = [&](int64_t from, int64_t to, bool keep) {
            if (from >= to) return;
            Shape dims = batch;
            dims.push_back(to - from);
            std::vector<int64_t> stride = batchStrides;
            stride.push_back(1);
            const int64_t offset = row * columns + from;
            StridedCopy copy{0, 0, dims, offset, offset, stride, stride, std::nullopt};
            if (!keep) {
                copy.fill = Tensor::zeros(input.dtype, {});  // zero bytes: zero, false or +0.0
                copy.inputOffset = 0;
                copy.inputStrides.assign(dims.size(), 0);
            }
            copies.push_back(std::move(copy));
        };
        piece(0, first, false);
        piece(first, end, true);
        piece(end, columns, false);
    }
    return copies;
}

}  // namespace npusim::compiler::ops
