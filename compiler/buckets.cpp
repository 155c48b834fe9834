// Shape buckets: one compilation per size of a symbolic dim, merged into one artifact whose
// manifest lists every bucket and whose sections hold each bucket's commands and weights.
#include <algorithm>

#include "arch/error.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/graph/padding_check.h"
#include "compiler/pipeline.h"

namespace npusim::compiler {

Compilation compileBuckets(const std::filesystem::path& model, const ArchConfig& config, const std::string& symbol,
                           std::vector<int64_t> sizes, const CompileOptions& options) {
    if (sizes.empty()) throw InputError("--bucket " + symbol + " needs at least one size");
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    if (sizes.front() <= 0) throw InputError("--bucket " + symbol + ": sizes must be positive");
    // Padded positions must stay apart from real ones in every op; the smallest size shows.
    checkPaddable(importOnnx(model, options.bindings, {{symbol, sizes.front()}}), symbol);

    std::optional<Compilation> first;
    std::vector<BucketRecord> buckets;
    std::map<std::string, std::vector<std::byte>> sections;
    for (int64_t size : sizes) {
        CompileOptions sized = options;
        sized.dims[symbol] = size;
        Compilation c = compileModel(model, config, sized);
        const ArtifactManifest& m = c.artifact.manifest;
        BucketRecord bucket{symbol, size, m.inputs, m.outputs, m.dramBytes, m.weightsOffset, m.ops};
        std::string label = bucketLabel(bucket);
        label.insert(label.begin(), '@');
        sections[std::string(kCommandsSection).append(label)] = c.artifact.sections.at(kCommandsSection);
        sections[std::string(kWeightsSection).append(label)] = c.artifact.sections.at(kWeightsSection);
        buckets.push_back(std::move(bucket));
        if (!first) first = std::move(c);
    }
    // The first bucket's IR sections explain the compilation; every bucket's commands and
    // weights are kept under their labels.
    Artifact& artifact = first->artifact;
    artifact.sections.erase(kCommandsSection);
    artifact.sections.erase(kWeightsSection);
    artifact.sections.merge(sections);
    artifact.manifest.buckets = std::move(buckets);
    return std::move(*first);
}

}  // namespace npusim::compiler
