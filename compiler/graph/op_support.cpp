// Shape helpers shared by the op implementations.
#include "compiler/graph/op_support.h"

#include <algorithm>
#include <string>

#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {

Shape broadcastShapes(const Node& node, const Shape& a, const Shape& b) {
    const size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t aDim = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t bDim = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (aDim != bDim && aDim != 1 && bDim != 1) {
            opError(node, "shapes " + shapeString(a) + " and " + shapeString(b) +
                              " do not broadcast");
        }
        out[i] = aDim == 1 ? bDim : aDim;
    }
    return out;
}

std::vector<int64_t> broadcastStrides(const Shape& dims, size_t rank) {
    std::vector<int64_t> strides(rank, 0);
    int64_t stride = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        const size_t dim = dims.size() - 1 - i;
        strides[rank - 1 - i] = dims[dim] == 1 ? 0 : stride;
        stride *= dims[dim];
    }
    return strides;
}

std::vector<int64_t> rowMajorStrides(const Shape& shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    return strides;
}

int64_t normalizeAxis(const Node& node, int64_t axis, int64_t rank, const char* what) {
    if (axis < -rank || axis >= std::max<int64_t>(rank, 1)) {
        opError(node, std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                          std::to_string(rank));
    }
    return axis < 0 ? axis + rank : axis;
}

}  // namespace npusim::compiler::ops
