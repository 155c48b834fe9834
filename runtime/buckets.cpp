// Bucket choice, the actual size the inputs carry, padding to the bucket and cutting back.
#include "runtime/buckets.h"

#include <algorithm>
#include <optional>

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

int64_t actualSize(const ArtifactManifest& manifest, const std::map<std::string, Tensor>& inputs) {
    const BucketRecord& bucket = manifest.buckets.front();
    std::optional<int64_t> size;
    std::string from;
    for (const TensorBinding& binding : bucket.inputs) {
        const auto it = inputs.find(binding.name);
        if (it == inputs.end()) continue;  // Runtime::run names a missing input
        const Shape& shape = it->second.shape;
        bool fits = shape.size() == binding.shape.size();
        for (size_t d = 0; fits && d < shape.size(); ++d) {
            if (d < binding.symbols.size() && binding.symbols[d] == bucket.symbol) {
                if (size && *size != shape[d]) {
                    throw InputError("inputs '" + from + "' and '" + binding.name + "' disagree on " + bucket.symbol + ": " +
                                     std::to_string(*size) + " and " + std::to_string(shape[d]));
                }
                size = shape[d];
                from = binding.name;
            } else {
                fits = shape[d] == binding.shape[d];
            }
        }
        if (!fits) {
            throw InputError("input '" + binding.name + "': expected " + shapeString(binding.shape) + " with " + bucket.symbol +
                             " any size up to " + std::to_string(manifest.buckets.back().size) + ", got " + shapeString(shape));
        }
    }
    if (!size) throw InputError("no input carries the bucketed dim " + bucket.symbol);
    if (*size <= 0) throw InputError(bucket.symbol + "=" + std::to_string(*size) + ": a bucketed dim must be positive");
    return *size;
}

BucketRun prepareBucketRun(const Artifact& artifact, const std::map<std::string, Tensor>& inputs) {
    const int64_t actual = actualSize(artifact.manifest, inputs);
    const size_t index = chooseBucket(artifact.manifest, actual);
    BucketRun run{bucketArtifact(artifact, index), {}, {}};
    run.choice = {artifact.manifest.buckets[index].symbol, artifact.manifest.buckets[index].size, actual};
    for (const TensorBinding& binding : run.artifact.manifest.inputs) {
        const auto it = inputs.find(binding.name);
        if (it != inputs.end()) run.inputs[binding.name] = cropOrPad(it->second, binding.shape);
    }
    return run;
}

std::vector<Tensor> cutToActualSize(std::vector<Tensor> outputs, std::span<const TensorBinding> bindings,
                                    const BucketChoice& choice) {
    for (size_t i = 0; i < outputs.size() && i < bindings.size(); ++i) {
        Shape shape = outputs[i].shape;
        for (size_t d = 0; d < bindings[i].symbols.size() && d < shape.size(); ++d) {
            if (bindings[i].symbols[d] == choice.symbol) shape[d] = choice.actual;
        }
        outputs[i] = cropOrPad(outputs[i], shape);
    }
    return outputs;
}

}  // namespace npusim::runtime
