// Bucket choice and bindings at a size.
#include "runtime/buckets.h"

#include <algorithm>

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

}  // namespace npusim::runtime
