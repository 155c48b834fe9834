// Index space simplification.
#include "compiler/tile/index_space.h"

namespace npusim::compiler {

size_t IndexSpace::add(std::vector<int64_t> operandStrides) {
    strides.push_back(std::move(operandStrides));
    return strides.size() - 1;
}

IndexSpace denseSpace(const Shape& shape) {
    IndexSpace space;
    space.dims = shape;
    space.add(broadcastTo(shape, shape));
    return space;
}

std::vector<int64_t> broadcastTo(const Shape& shape, const Shape& target) {
    std::vector<int64_t> strides(target.size(), 0);
    int64_t stride = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        const size_t dim = shape.size() - 1 - i;
        strides[target.size() - 1 - i] = shape[dim] == 1 ? 0 : stride;
        stride *= shape[dim];
    }
    return strides;
}

void permuteDims(IndexSpace& space, std::span<const size_t> order) {
    Shape dims;
    for (size_t d : order) dims.push_back(space.dims[d]);
    for (std::vector<int64_t>& strides : space.strides) {
        std::vector<int64_t> permuted;
        for (size_t d : order) permuted.push_back(strides[d]);
        strides = std::move(permuted);
    }
    space.dims = std::move(dims);
}

size_t simplifyDims(IndexSpace& space, size_t begin, size_t end) {
    Shape dims(space.dims.begin(), space.dims.begin() + static_cast<std::ptrdiff_t>(begin));
    std::vector<std::vector<int64_t>> strides(space.strides.size());
    for (size_t o = 0; o < strides.size(); ++o) {
        strides[o].assign(space.strides[o].begin(), space.strides[o].begin() + static_cast<std::ptrdiff_t>(begin));
    }
    for (size_t d = begin; d < end; ++d) {
        if (space.dims[d] == 1) continue;
        bool merge = dims.size() > begin;
        for (size_t o = 0; merge && o < strides.size(); ++o) {
            merge = strides[o].back() == space.strides[o][d] * space.dims[d];
        }
        if (merge) {
            dims.back() *= space.dims[d];
            for (size_t o = 0; o < strides.size(); ++o) strides[o].back() = space.strides[o][d];
        } else {
            dims.push_back(space.dims[d]);
            for (size_t o = 0; o < strides.size(); ++o) strides[o].push_back(space.strides[o][d]);
        }
    }
    const size_t newEnd = dims.size();
    for (size_t d = end; d < space.dims.size(); ++d) {
        dims.push_back(space.dims[d]);
        for (size_t o = 0; o < strides.size(); ++o) strides[o].push_back(space.strides[o][d]);
    }
    space.dims = std::move(dims);
    space.strides = std::move(strides);
    return newEnd;
}

bool splitDim(IndexSpace& space, size_t d, int64_t limit) {
    const int64_t extent = space.dims[d];
    if (extent <= limit) return false;
    int64_t inner = limit;
    while (extent % inner != 0) --inner;
    space.dims[d] = extent / inner;
    space.dims.insert(space.dims.begin() + static_cast<std::ptrdiff_t>(d) + 1, inner);
    for (std::vector<int64_t>& strides : space.strides) {
        const int64_t stride = strides[d];
        strides[d] = stride * inner;
        strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(d) + 1, stride);
    }
    return true;
}

void insertUnitDim(IndexSpace& space, size_t d) {
    space.dims.insert(space.dims.begin() + static_cast<std::ptrdiff_t>(d), 1);
    for (std::vector<int64_t>& strides : space.strides) {
        strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(d), 0);
    }
}

}  // namespace npusim::compiler
