// Bucket choice and padding.
#include "runtime/buckets.h"

#include <algorithm>
#include <cstring>

#include "arch/error.h"

namespace npusim::runtime {

size_t chooseBucket(const ArtifactManifest& manifest, int64_t size) {
    for (size_t i = 0; i < manifest.buckets.size(); ++i) {
        if (manifest.buckets[i].size >= size) return i;
    }
    const BucketRecord& largest = manifest.buckets.back();
    throw InputError(largest.symbol + "=" + std::to_string(size) + " is larger than the largest bucket (" +
                     bucketLabel(largest) + "); recompile with a larger --bucket " + largest.symbol);
}

std::vector<TensorBinding> resized(std::span<const TensorBinding> bindings, const std::string& symbol, int64_t size) {
    std::vector<TensorBinding> out(bindings.begin(), bindings.end());
    for (TensorBinding& binding : out) {
        for (size_t d = 0; d < binding.symbols.size(); ++d) {
            if (binding.symbols[d] == symbol) binding.shape[d] = size;
        }
    }
    return out;
}

Tensor reshaped(const Tensor& tensor, const Shape& shape) {
    Tensor out = Tensor::zeros(tensor.dtype, shape);
    const size_t elem = dtypeSize(tensor.dtype);
    const size_t rank = shape.size();
    if (rank == 0) {
        std::memcpy(out.bytes.data(), tensor.bytes.data(), elem);
        return out;
    }
    // Copy the common box row by row (the last dim's common run at a time).
    Shape common(rank);
    for (size_t d = 0; d < rank; ++d) common[d] = std::min(shape[d], tensor.shape[d]);
    if (elementCount(common) == 0) return out;
    std::vector<int64_t> index(rank, 0);
    const auto run = static_cast<size_t>(common.back()) * elem;
    while (true) {
        int64_t from = 0, to = 0;
        for (size_t d = 0; d < rank; ++d) {
            from = from * tensor.shape[d] + index[d];
            to = to * shape[d] + index[d];
        }
        std::memcpy(out.bytes.data() + static_cast<size_t>(to) * elem,
                    tensor.bytes.data() + static_cast<size_t>(from) * elem, run);
        size_t d = rank - 1;
        while (d-- > 0) {
            if (++index[d] < common[d]) break;
            index[d] = 0;
        }
        if (d == static_cast<size_t>(-1)) return out;
    }
}

}  // namespace npusim::runtime
