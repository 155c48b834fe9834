// Shape buckets: one compilation per size of a symbolic dim, merged into one artifact whose
// manifest lists every bucket and whose sections hold each bucket's commands and weights.
#include <algorithm>
#include <map>

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
    std::map<std::string, int64_t> dims = options.dims;
    dims[symbol] = sizes.front();
    const Graph smallest = importOnnx(model, options.bindings, dims);
    checkPaddable(smallest, symbol);
    // Nothing may be computed from the size itself (a Shape or Size the frontend folded into a
    // constant): padded, the model would compute with the bucket's size.
    dims[symbol] = sizes.front() + 1;
    const Graph larger = importOnnx(model, options.bindings, dims);
    for (const Value& value : smallest.values) {
        if (!value.constant) continue;
        const auto same = std::find_if(larger.values.begin(), larger.values.end(),
                                       [&](const Value& v) { return v.name == value.name; });
        if (same != larger.values.end() && same->constant && same->constant->bytes != value.constant->bytes) {
            throw InputError("'" + value.name + "' is computed from the size of '" + symbol +
                             "', which padding to a bucket would change; the model cannot run in shape buckets");
        }
    }

    std::optional<Compilation> first;
    std::vector<BucketRecord> buckets;
    std::map<std::string, std::vector<std::byte>> sections;
    for (int64_t size : sizes) {
        CompileOptions sized = options;
        sized.dims[symbol] = size;
        if (options.dump) {  // each bucket's stages under its own label
            sized.dump = [&, prefix = symbol + "=" + std::to_string(size) + "-"](std::string_view stage, IrLevel level,
                                                                                 const std::string& text) {
                options.dump(prefix + std::string(stage), level, text);
            };
        }
        Compilation c = compileModel(model, config, sized);
        const ArtifactManifest& m = c.artifact.manifest;
        BucketRecord bucket{symbol, size, m.inputs, m.outputs, m.dramBytes, m.weightsOffset, m.residentWeightBytes, m.sizes, m.ops, m.segments};
        std::string label = bucketLabel(bucket);
        label.insert(label.begin(), '@');
        for (const std::string& name : runSections(c.artifact)) {
            sections[std::string(name).append(label)] = c.artifact.sections.at(name);
        }
        buckets.push_back(std::move(bucket));
        if (!first) first = std::move(c);
    }
    // The first bucket's IR sections explain the compilation; every bucket's command streams,
    // weights and CPU code are kept under their labels.
    Artifact& artifact = first->artifact;
    for (const std::string& name : runSections(artifact)) artifact.sections.erase(name);
    artifact.sections.merge(sections);
    artifact.manifest.buckets = std::move(buckets);
    return std::move(*first);
}

}  // namespace npusim::compiler
