// A generation request's KV cache on the device: a decoder's prefill and decode plans loaded
// in the request's contexts, the cache held in device memory at the decode plan's past inputs
// across steps, each step's new entries appended in place (docs/LLM.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arch/artifact.h"
#include "arch/tensor.h"
#include "driver/driver.h"
#include "runtime/decoder_signature.h"
#include "runtime/runtime.h"

namespace npusim::runtime {

/// One prefill or decode step on the host's clock: from its first input upload to the end of
/// its cache append; `job` is the NPU's part.
struct StepTiming {
    uint64_t start = 0, end = 0;
    driver::JobResult job;
};

struct StepOutput {
    Tensor logits;  ///< [batch, vocab]: the step's last position
    StepTiming timing;
};

/// The inputs of a decoder step of `tokens` ([batch, seq]) over `slots` cache slots of which
/// the first `length` hold entries: the token ids, their positions (from `length`) and a mask
/// that shows the held slots and the new tokens and hides the empty ones. The past inputs are
/// not among them.
std::map<std::string, Tensor> decoderStepInputs(const DecoderSignature& signature, const ArtifactManifest& manifest,
                                                const Tensor& tokens, int64_t slots, int64_t length);
/// The last position's logits ([batch, vocab]) among a step's outputs (in `manifest`'s order).
Tensor lastLogits(const DecoderSignature& signature, const ArtifactManifest& manifest, const std::vector<Tensor>& outputs);
/// Writes `added`'s entries along `axis` into `cache` from slot `at` on (a host copy of what a
/// session appends in device memory).
void appendEntries(Tensor& cache, const Tensor& added, size_t axis, int64_t at);

class KvSession {
public:
    /// Loads both plans. `prefill` was compiled with the new tokens' count at the prompt length
    /// and a past of one slot (masked: an empty cache); `decode` with one new token and a past
    /// of the cache's capacity, its presents as appends (presentsAsAppends). The artifacts must
    /// outlive the session.
    KvSession(Runtime& runtime, driver::Driver& driver, const Artifact& prefill, const Artifact& decode,
              DecoderSignature signature);
    ~KvSession();
    KvSession(const KvSession&) = delete;
    KvSession& operator=(const KvSession&) = delete;

    /// Tokens the cache holds at most, and holds now.
    int64_t capacity() const { return capacity_; }
    int64_t length() const { return length_; }
    int64_t batch() const { return batch_; }
    /// The cache's bytes in device memory (every layer's keys and values at capacity).
    uint64_t cacheBytes() const;
    /// The cache's bytes per token it holds.
    uint64_t bytesPerToken() const;

    /// Runs the prompt ([batch, prompt length] token ids) and fills the cache with its entries.
    StepOutput prefill(const Tensor& prompt);
    /// Runs one token per sequence ([batch, 1]) against the cache and appends its entries;
    /// InputError when the cache is full.
    StepOutput decode(const Tensor& tokens);

private:
    /// Writes the presents among `outputs` (of `manifest`) into the cache at slot length_.
    void append(const ArtifactManifest& manifest, const std::vector<Tensor>& outputs);

    Runtime& runtime_;
    driver::Driver& driver_;
    DecoderSignature signature_;
    LoadedModel prefill_, decode_;
    int64_t capacity_ = 0, length_ = 0, batch_ = 1;
};

}  // namespace npusim::runtime
