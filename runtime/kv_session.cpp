// Prefill and decode steps over a KV cache kept in device memory.
#include "runtime/kv_session.h"

#include <algorithm>
#include <functional>

#include "arch/error.h"

namespace npusim::runtime {
namespace {

const TensorBinding& bindingNamed(std::span<const TensorBinding> list, const std::string& name, const char* what) {
    const auto it = std::find_if(list.begin(), list.end(), [&](const TensorBinding& b) { return b.name == name; });
    if (it == list.end()) throw InputError(std::string("the plan has no ") + what + " '" + name + "'");
    return *it;
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

/// Elements of `shape` before `axis`, and bytes of one entry along it (the dims after it).
std::pair<int64_t, uint64_t> entryGeometry(DType dtype, const Shape& shape, size_t axis) {
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (d < axis) outer *= shape[d];
        if (d > axis) inner *= shape[d];
    }
    return {outer, static_cast<uint64_t>(inner) * dtypeSize(dtype)};
}

}  // namespace

KvSession::KvSession(Runtime& runtime, driver::Driver& driver, const Artifact& prefill, const Artifact& decode,
                     DecoderSignature signature)
    : runtime_(runtime), driver_(driver), signature_(std::move(signature)) {
    const KvPair& first = signature_.kv.front();
    capacity_ = bindingNamed(decode.manifest.inputs, first.past, "input").shape.at(first.axis);
    batch_ = bindingNamed(decode.manifest.inputs, signature_.tokens, "input").shape.at(0);
    prefill_ = runtime_.load(prefill);
    try {
        decode_ = runtime_.load(decode);
        // The cache starts empty: its masked slots are still read, and stale bytes (a NaN) would
        // reach the attention's weighted sum.
        for (const KvPair& pair : signature_.kv) {
            const TensorBinding& past = bindingNamed(decode.manifest.inputs, pair.past, "input");
            driver_.write(decode_.context, past.dramOffset, Tensor::zeros(past.dtype, past.shape).bytes);
        }
    } catch (...) {
        if (decode_.artifact) runtime_.unload(decode_);
        runtime_.unload(prefill_);
        throw;
    }
}

KvSession::~KvSession() {
    runtime_.unload(decode_);
    runtime_.unload(prefill_);
}

uint64_t KvSession::cacheBytes() const {
    uint64_t bytes = 0;
    for (const KvPair& pair : signature_.kv) {
        const TensorBinding& past = bindingNamed(decode_.artifact->manifest.inputs, pair.past, "input");
        bytes += static_cast<uint64_t>(elementCount(past.shape)) * dtypeSize(past.dtype);
    }
    return bytes;
}

uint64_t KvSession::bytesPerToken() const { return cacheBytes() / static_cast<uint64_t>(capacity_); }

std::map<std::string, Tensor> decoderStepInputs(const DecoderSignature& signature, const ArtifactManifest& manifest,
                                                const Tensor& tokens, int64_t slots, int64_t length) {
    const TensorBinding& ids = bindingNamed(manifest.inputs, signature.tokens, "input");
    if (tokens.shape != ids.shape) {
        throw InputError("the step's token ids are " + shapeString(tokens.shape) + ", the plan takes " + shapeString(ids.shape));
    }
    const int64_t seq = ids.shape[1];
    std::map<std::string, Tensor> inputs;
    inputs[ids.name] = filled(ids, [&](int64_t i) { return static_cast<int64_t>(tokens.valueAt(i)); });
    if (!signature.positions.empty()) {
        const TensorBinding& positions = bindingNamed(manifest.inputs, signature.positions, "input");
        inputs[positions.name] = filled(positions, [&](int64_t i) { return length + i % seq; });
    }
    // The slots [0, length) hold entries, [length, slots) are empty; the new tokens follow.
    const TensorBinding& mask = bindingNamed(manifest.inputs, signature.mask, "input");
    const int64_t width = slots + seq;
    inputs[mask.name] = filled(mask, [&](int64_t i) {
        const int64_t slot = i % width;
        return slot < length || slot >= slots ? 1 : 0;
    });
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

void appendEntries(Tensor& cache, const Tensor& added, size_t axis, int64_t at) {
    const int64_t slots = cache.shape.at(axis), count = added.shape.at(axis);
    if (at + count > slots) throw InputError("appending " + std::to_string(count) + " entries at slot " + std::to_string(at) +
                                             " overflows a cache of " + std::to_string(slots));
    const auto [outer, entry] = entryGeometry(cache.dtype, cache.shape, axis);
    const uint64_t run = static_cast<uint64_t>(count) * entry;
    for (int64_t o = 0; o < outer; ++o) {
        const auto from = added.bytes.begin() + static_cast<ptrdiff_t>(static_cast<uint64_t>(o) * run);
        std::copy(from, from + static_cast<ptrdiff_t>(run),
                  cache.bytes.begin() + static_cast<ptrdiff_t>(static_cast<uint64_t>(o * slots + at) * entry));
    }
}

void KvSession::append(const ArtifactManifest& manifest, const std::vector<Tensor>& outputs) {
    for (const KvPair& pair : signature_.kv) {
        const Tensor& added = outputs.at(outputIndex(manifest, pair.present));
        const TensorBinding& cache = bindingNamed(decode_.artifact->manifest.inputs, pair.past, "input");
        const int64_t count = added.shape.at(pair.axis);
        if (length_ + count > capacity_) {
            throw InputError("the KV cache is full: it holds " + std::to_string(capacity_) + " tokens, and " +
                             std::to_string(length_) + " + " + std::to_string(count) + " do not fit");
        }
        // One contiguous run of `count` entries per index of the dims before the sequence axis.
        const auto [outer, entry] = entryGeometry(cache.dtype, cache.shape, pair.axis);
        const uint64_t run = static_cast<uint64_t>(count) * entry;
        for (int64_t o = 0; o < outer; ++o) {
            const uint64_t slot = static_cast<uint64_t>(o * capacity_ + length_);
            driver_.write(decode_.context, cache.dramOffset + slot * entry,
                          std::span(added.bytes).subspan(static_cast<size_t>(o) * run, run));
        }
    }
}

StepOutput KvSession::prefill(const Tensor& prompt) {
    if (length_ != 0) throw InputError("the session has run its prefill already");
    const ArtifactManifest& manifest = prefill_.artifact->manifest;
    const int64_t seq = bindingNamed(manifest.inputs, signature_.tokens, "input").shape[1];
    if (seq > capacity_) {
        throw InputError("the prompt's " + std::to_string(seq) + " tokens exceed the KV cache's capacity of " +
                         std::to_string(capacity_));
    }
    StepOutput out;
    out.timing.start = driver_.nowCycles();
    // The prefill plan's one past slot stays empty: its inputs hold zeros, the mask hides them.
    std::map<std::string, Tensor> inputs = decoderStepInputs(signature_, manifest, prompt, 1, length_);
    for (const KvPair& pair : signature_.kv) {
        const TensorBinding& past = bindingNamed(manifest.inputs, pair.past, "input");
        inputs[past.name] = Tensor::zeros(past.dtype, past.shape);
    }
    const RunResult run = runtime_.run(prefill_, inputs);
    out.timing.job = run.job;
    append(manifest, run.outputs);
    length_ = seq;
    out.logits = lastLogits(signature_, manifest, run.outputs);
    out.timing.end = driver_.nowCycles();
    return out;
}

StepOutput KvSession::decode(const Tensor& tokens) {
    if (length_ == 0) throw InputError("decode before prefill: the KV cache is empty");
    if (length_ >= capacity_) {
        throw InputError("the KV cache is full: it holds " + std::to_string(capacity_) + " tokens (raise --capacity)");
    }
    const ArtifactManifest& manifest = decode_.artifact->manifest;
    StepOutput out;
    out.timing.start = driver_.nowCycles();
    std::set<std::string> resident;
    for (const KvPair& pair : signature_.kv) resident.insert(pair.past);
    const RunResult run = runtime_.run(decode_, decoderStepInputs(signature_, manifest, tokens, capacity_, length_), resident);
    out.timing.job = run.job;
    append(manifest, run.outputs);
    ++length_;
    out.logits = lastLogits(signature_, manifest, run.outputs);
    out.timing.end = driver_.nowCycles();
    return out;
}

}  // namespace npusim::runtime
