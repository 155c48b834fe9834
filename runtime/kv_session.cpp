// Prefill and decode steps over a KV cache kept in device memory.
#include "runtime/kv_session.h"

#include <algorithm>
#include <functional>

#include "arch/error.h"

namespace npusim::runtime {
namespace {

const TensorBinding& bindingNamed(std::span<const TensorBinding> list, const std::string& name, const char* what) {
    const TensorBinding* binding = findBinding(list, name);
    if (!binding) throw InputError(std::string("the plan has no ") + what + " '" + name + "'");
    return *binding;
}

size_t outputIndex(const ArtifactManifest& manifest, const std::string& name) {
    return static_cast<size_t>(&bindingNamed(manifest.outputs, name, "output") - manifest.outputs.data());
}

/// A tensor of `binding`'s dtype and shape whose element i is value(i): token ids, positions
/// and masks, so integers, floats or booleans.
Tensor filled(const TensorBinding& binding, const std::function<int64_t(int64_t)>& value) {
    Tensor t = Tensor::zeros(binding.dtype, binding.shape);
    for (int64_t i = 0; i < t.elementCount(); ++i) {
        switch (binding.dtype) {
            case DType::Int64: t.as<int64_t>()[i] = value(i); break;
            case DType::Int32: t.as<int32_t>()[i] = static_cast<int32_t>(value(i)); break;
            case DType::Fp32: t.as<float>()[i] = static_cast<float>(value(i)); break;
            case DType::Bool: t.as<uint8_t>()[i] = value(i) != 0; break;
            default:
                throw InputError("the decoder input '" + binding.name + "' is " + std::string(dtypeName(binding.dtype)) +
                                 "; token ids, positions and masks are int64, int32, fp32 or bool");
        }
    }
    return t;
}

/// The contiguous runs of appending `added` (rows of entries along `axis`) into a cache of
/// `cache` shape from row `firstRow` on: `copy(from, to, bytes)` per run, byte offsets into
/// `added` and the cache, row r at slot `slots[r]` (negative: skipped). The batch is dim 0.
void forEachAppend(DType dtype, const Shape& cache, const Shape& added, size_t axis, int64_t firstRow,
                   std::span<const int64_t> slots, const std::function<void(uint64_t, uint64_t, uint64_t)>& copy) {
    for (size_t d = 1; d < cache.size(); ++d) {
        if (added.size() != cache.size() || (d != axis && added[d] != cache[d])) {
            throw InputError("entries " + shapeString(added) + " do not fit a cache " + shapeString(cache) + " along dim " +
                             std::to_string(axis));
        }
    }
    int64_t perRow = 1, inner = 1;
    for (size_t d = 1; d < cache.size(); ++d) {
        if (d < axis) perRow *= cache[d];
        if (d > axis) inner *= cache[d];
    }
    const uint64_t entry = static_cast<uint64_t>(inner) * dtypeSize(dtype);
    const int64_t capacity = cache.at(axis), count = added.at(axis);
    const uint64_t run = static_cast<uint64_t>(count) * entry;
    if (static_cast<int64_t>(slots.size()) != added.at(0) || firstRow + added.at(0) > cache.at(0)) {
        throw InputError("appending " + std::to_string(added.at(0)) + " rows from row " + std::to_string(firstRow) +
                         " to a cache of " + std::to_string(cache.at(0)));
    }
    for (int64_t r = 0; r < added.at(0); ++r) {
        const int64_t slot = slots[static_cast<size_t>(r)];
        if (slot < 0) continue;
        if (slot + count > capacity) {
            throw InputError("appending " + std::to_string(count) + " entries at slot " + std::to_string(slot) +
                             " overflows a cache of " + std::to_string(capacity));
        }
        for (int64_t o = 0; o < perRow; ++o) {
            const auto index = static_cast<uint64_t>(r * perRow + o);
            const auto target = static_cast<uint64_t>(((firstRow + r) * perRow + o) * capacity + slot);
            copy(index * run, target * entry, run);
        }
    }
}

}  // namespace

const TensorBinding* findBinding(std::span<const TensorBinding> bindings, const std::string& name) {
    const auto it = std::find_if(bindings.begin(), bindings.end(), [&](const TensorBinding& b) { return b.name == name; });
    return it == bindings.end() ? nullptr : &*it;
}

CacheRows::CacheRows(int64_t rows, int64_t rowsPerRequest, int64_t capacity)
    : rowsPerRequest_(rowsPerRequest), capacity_(capacity) {
    if (rowsPerRequest < 1 || rows % rowsPerRequest != 0) {
        throw InputError("the decode plan's batch of " + std::to_string(rows) + " is not a whole number of the prefill's " +
                         std::to_string(rowsPerRequest));
    }
    lengths_.assign(static_cast<size_t>(rows), 0);
}

void CacheRows::prefilled(int64_t request, int64_t length) {
    if (request < 0 || request >= requests()) throw InputError("no request " + std::to_string(request) + " in the session");
    if (this->length(request) != 0) throw InputError("request " + std::to_string(request) + " has run its prefill already");
    if (length > capacity_) {
        throw InputError("the prompt's " + std::to_string(length) + " tokens exceed the KV cache's capacity of " +
                         std::to_string(capacity_));
    }
    std::fill_n(lengths_.begin() + request * rowsPerRequest_, rowsPerRequest_, length);
}

std::vector<int64_t> CacheRows::decodeSlots(const std::vector<bool>& active) const {
    if (static_cast<int64_t>(active.size()) != requests()) {
        throw InputError("a decode step names " + std::to_string(active.size()) + " requests of the session's " +
                         std::to_string(requests()));
    }
    std::vector<int64_t> slots(lengths_.size(), -1);
    for (int64_t r = 0; r < requests(); ++r) {
        if (!active[static_cast<size_t>(r)]) continue;
        if (length(r) == 0) throw InputError("request " + std::to_string(r) + " decodes before its prefill: its cache is empty");
        if (length(r) >= capacity_) {
            throw InputError("request " + std::to_string(r) + "'s KV cache is full: it holds " + std::to_string(capacity_) +
                             " tokens (raise --capacity)");
        }
        std::copy_n(lengths_.begin() + r * rowsPerRequest_, rowsPerRequest_, slots.begin() + r * rowsPerRequest_);
    }
    return slots;
}

void CacheRows::decoded(std::span<const int64_t> slots) {
    for (size_t row = 0; row < lengths_.size(); ++row) lengths_[row] += slots[row] >= 0 ? 1 : 0;
}

KvSession::KvSession(Runtime& runtime, driver::Driver& driver, std::span<const Artifact* const> prefills,
                     const Artifact& decode, DecoderSignature signature)
    : runtime_(runtime), driver_(driver), signature_(std::move(signature)) {
    const KvPair& first = signature_.kv.front();
    const TensorBinding& cache = bindingNamed(decode.manifest.inputs, first.past, "input");
    if (first.axis == 0) throw InputError("the past '" + first.past + "' grows along its first dim, where its batch must be");
    if (prefills.empty()) throw InputError("a KV session needs a prefill plan");
    capacity_ = cache.shape.at(first.axis);
    rows_ = CacheRows(bindingNamed(decode.manifest.inputs, signature_.tokens, "input").shape.at(0),
                      bindingNamed(prefills.front()->manifest.inputs, signature_.tokens, "input").shape.at(0), capacity_);
    try {
        for (const Artifact* prefill : prefills) prefills_.push_back(runtime_.load(*prefill));
        decode_ = runtime_.load(decode);
        // The cache starts empty: its masked slots are still read, and stale bytes (a NaN) would
        // reach the attention's weighted sum.
        for (const KvPair& pair : signature_.kv) {
            const TensorBinding& past = bindingNamed(decode.manifest.inputs, pair.past, "input");
            driver_.write(decode_.context, past.dramOffset, Tensor::zeros(past.dtype, past.shape).bytes);
        }
    } catch (...) {
        if (decode_.artifact) runtime_.unload(decode_);
        for (const LoadedModel& prefill : prefills_) runtime_.unload(prefill);
        throw;
    }
}

KvSession::~KvSession() {
    runtime_.unload(decode_);
    for (const LoadedModel& prefill : prefills_) runtime_.unload(prefill);
}

uint64_t KvSession::cacheBytes() const {
    uint64_t bytes = 0;
    for (const KvPair& pair : signature_.kv) {
        const TensorBinding& past = bindingNamed(decode_.artifact->manifest.inputs, pair.past, "input");
        bytes += static_cast<uint64_t>(elementCount(past.shape)) * dtypeSize(past.dtype);
    }
    return bytes;
}

uint64_t KvSession::bytesPerToken() const {
    return cacheBytes() / static_cast<uint64_t>(capacity_) / static_cast<uint64_t>(rows_.lengths().size());
}

std::map<std::string, Tensor> decoderStepInputs(const DecoderSignature& signature, const ArtifactManifest& manifest,
                                                const Tensor& tokens, int64_t slots, std::span<const int64_t> lengths) {
    const TensorBinding& ids = bindingNamed(manifest.inputs, signature.tokens, "input");
    if (tokens.shape != ids.shape) {
        throw InputError("the step's token ids are " + shapeString(tokens.shape) + ", the plan takes " + shapeString(ids.shape));
    }
    const int64_t seq = ids.shape[1];
    if (static_cast<int64_t>(lengths.size()) != ids.shape[0]) {
        throw InputError("the step has " + std::to_string(lengths.size()) + " row lengths for a batch of " +
                         std::to_string(ids.shape[0]));
    }
    const auto length = [&](int64_t i, int64_t width) { return lengths[static_cast<size_t>(i / width)]; };
    std::map<std::string, Tensor> inputs;
    inputs[ids.name] = filled(ids, [&](int64_t i) { return static_cast<int64_t>(tokens.valueAt(i)); });
    // A prefill graph may take no positions or mask; a decode plan takes the mask (its signature).
    if (const TensorBinding* positions = findBinding(manifest.inputs, signature.positions)) {
        inputs[positions->name] = filled(*positions, [&](int64_t i) { return length(i, seq) + i % seq; });
    }
    // Per row, the slots [0, length) hold entries, [length, slots) are empty; the new tokens follow.
    if (const TensorBinding* mask = findBinding(manifest.inputs, signature.mask)) {
        const int64_t width = slots + seq;
        inputs[mask->name] = filled(*mask, [&](int64_t i) {
            const int64_t slot = i % width;
            return slot < length(i, width) || slot >= slots ? 1 : 0;
        });
    } else if (slots > 0) {
        throw InputError("the plan has no attention mask '" + signature.mask + "' to hide its cache's empty slots");
    }
    return inputs;
}

std::map<std::string, Tensor> prefillInputs(const DecoderSignature& signature, const ArtifactManifest& manifest,
                                            const Tensor& prompt) {
    // A past-KV graph's prefill has one past slot, empty: its inputs hold zeros, the mask hides
    // them. A prefill graph has no past.
    const bool past = std::all_of(signature.kv.begin(), signature.kv.end(),
                                  [&](const KvPair& pair) { return findBinding(manifest.inputs, pair.past) != nullptr; });
    const std::vector<int64_t> empty(static_cast<size_t>(prompt.shape.at(0)), 0);
    std::map<std::string, Tensor> inputs = decoderStepInputs(signature, manifest, prompt, past ? 1 : 0, empty);
    for (const KvPair& pair : signature.kv) {
        if (!past) break;
        const TensorBinding& binding = bindingNamed(manifest.inputs, pair.past, "input");
        inputs[binding.name] = Tensor::zeros(binding.dtype, binding.shape);
    }
    return inputs;
}

Tensor lastLogits(const DecoderSignature& signature, const ArtifactManifest& manifest, const std::vector<Tensor>& outputs) {
    const Tensor& all = outputs.at(outputIndex(manifest, signature.logits));
    if (all.shape.size() != 3 || all.dtype != DType::Fp32) {
        throw InputError("the logits '" + signature.logits + "' are not fp32 [batch, seq, vocab]");
    }
    const int64_t seq = all.shape[1], vocab = all.shape[2];
    Tensor last = Tensor::zeros(DType::Fp32, {all.shape[0], vocab});
    for (int64_t b = 0; b < all.shape[0]; ++b) {
        const auto row = all.as<float>().subspan(static_cast<size_t>((b * seq + seq - 1) * vocab), static_cast<size_t>(vocab));
        std::copy(row.begin(), row.end(), last.as<float>().begin() + b * vocab);
    }
    return last;
}

void appendEntries(Tensor& cache, const Tensor& added, size_t axis, int64_t firstRow, std::span<const int64_t> slots) {
    forEachAppend(cache.dtype, cache.shape, added.shape, axis, firstRow, slots, [&](uint64_t from, uint64_t to, uint64_t bytes) {
        std::copy_n(added.bytes.begin() + static_cast<ptrdiff_t>(from), bytes, cache.bytes.begin() + static_cast<ptrdiff_t>(to));
    });
}

void KvSession::append(const ArtifactManifest& manifest, const std::vector<Tensor>& outputs, int64_t firstRow,
                       std::span<const int64_t> slots) {
    for (const KvPair& pair : signature_.kv) {
        const Tensor& added = outputs.at(outputIndex(manifest, pair.present));
        const TensorBinding& cache = bindingNamed(decode_.artifact->manifest.inputs, pair.past, "input");
        forEachAppend(cache.dtype, cache.shape, added.shape, pair.axis, firstRow, slots, [&](uint64_t from, uint64_t to, uint64_t bytes) {
            driver_.write(decode_.context, cache.dramOffset + to, std::span(added.bytes).subspan(from, bytes));
        });
    }
}

StepOutput KvSession::prefill(int64_t request, const Tensor& prompt) {
    const int64_t seq = prompt.shape.at(1);
    const auto plan = std::find_if(prefills_.begin(), prefills_.end(), [&](const LoadedModel& m) {
        return bindingNamed(m.artifact->manifest.inputs, signature_.tokens, "input").shape.at(1) == seq;
    });
    if (plan == prefills_.end()) throw InputError("no prefill plan takes a " + std::to_string(seq) + "-token prompt");
    const ArtifactManifest& manifest = plan->artifact->manifest;
    rows_.prefilled(request, seq);  // the rows' entries are written below
    StepOutput out;
    out.timing.start = driver_.nowCycles();
    const RunResult run = runtime_.run(*plan, prefillInputs(signature_, manifest, prompt));
    out.timing.job = run.job;
    append(manifest, run.outputs, request * rowsPerRequest(), std::vector<int64_t>(static_cast<size_t>(rowsPerRequest()), 0));
    out.logits = lastLogits(signature_, manifest, run.outputs);
    out.timing.end = driver_.nowCycles();
    return out;
}

StepOutput KvSession::decode(const Tensor& tokens, const std::vector<bool>& active) {
    const std::vector<int64_t> slots = rows_.decodeSlots(active);
    const ArtifactManifest& manifest = decode_.artifact->manifest;
    StepOutput out;
    out.timing.start = driver_.nowCycles();
    std::set<std::string> resident;
    for (const KvPair& pair : signature_.kv) resident.insert(pair.past);
    const RunResult run =
        runtime_.run(decode_, decoderStepInputs(signature_, manifest, tokens, capacity_, rows_.lengths()), resident);
    out.timing.job = run.job;
    append(manifest, run.outputs, 0, slots);
    rows_.decoded(slots);
    out.logits = lastLogits(signature_, manifest, run.outputs);
    out.timing.end = driver_.nowCycles();
    return out;
}

}  // namespace npusim::runtime
