// Reading the actual size of a symbolic dim from input files.
#include "sim/buckets.h"

#include <algorithm>

#include "arch/error.h"
#include "sim/npy.h"

namespace npusim::sim {

int64_t actualSize(const BucketRecord& bucket, const std::optional<std::filesystem::path>& inputs, int64_t fallback) {
    if (!inputs) return fallback;
    for (const TensorBinding& binding : bucket.inputs) {
        const auto dim = std::find(binding.symbols.begin(), binding.symbols.end(), bucket.symbol);
        const std::filesystem::path file = *inputs / (binding.name + ".npy");
        if (dim == binding.symbols.end() || !std::filesystem::exists(file)) continue;
        const Tensor tensor = readNpy(file);
        const auto axis = static_cast<size_t>(dim - binding.symbols.begin());
        if (axis >= tensor.shape.size()) {
            throw InputError("input '" + binding.name + "' in " + file.string() + " has " +
                             std::to_string(tensor.shape.size()) + " dims, expected " +
                             std::to_string(binding.shape.size()));
        }
        return tensor.shape[axis];
    }
    return fallback;
}

}  // namespace npusim::sim
