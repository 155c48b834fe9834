// Generation requests' KV caches on the device: a decoder's prefill and decode plans loaded in
// one context each, the caches held in device memory at the decode plan's past inputs across
// steps, each step's new entries appended in place (docs/LLM.md). The decode plan's batch rows
// are shared out among requests: each request owns the prefill plan's batch of rows, and one
// decode step advances every active request (continuous batching).
#pragma once

#include <cstdint>
#include <map>
#include <span>
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
    Tensor logits;  ///< [rows, vocab]: each row's last position
    StepTiming timing;
};

/// The binding named `name` in `bindings`, or null.
const TensorBinding* findBinding(std::span<const TensorBinding> bindings, const std::string& name);

/// Which rows of a cache hold how many entries, requests owning `rowsPerRequest` rows each:
/// the bookkeeping of a KvSession, and of a reference that mirrors it on the host.
class CacheRows {
public:
    CacheRows(int64_t rows, int64_t rowsPerRequest, int64_t capacity);
    int64_t requests() const { return static_cast<int64_t>(lengths_.size()) / rowsPerRequest_; }
    int64_t rowsPerRequest() const { return rowsPerRequest_; }
    /// Entries request `request`'s rows hold, and every row's.
    int64_t length(int64_t request) const { return lengths_.at(static_cast<size_t>(request * rowsPerRequest_)); }
    std::span<const int64_t> lengths() const { return lengths_; }
    /// Request `request`'s rows now hold a prompt of `length` entries; InputError unless they
    /// were empty and the prompt fits.
    void prefilled(int64_t request, int64_t length);
    /// The slot each row of a decode step of the `active` requests appends at (-1: a row whose
    /// entries are not kept); InputError when an active request's cache is empty or full.
    std::vector<int64_t> decodeSlots(const std::vector<bool>& active) const;
    /// Each row a decode step appended to (its slot not negative) holds one entry more.
    void decoded(std::span<const int64_t> slots);

private:
    int64_t rowsPerRequest_ = 1, capacity_ = 0;
    std::vector<int64_t> lengths_;  ///< per row
};

/// The inputs of a decoder step of `tokens` ([rows, seq]) over `slots` cache slots, of which
/// row r's first `lengths[r]` hold entries: the token ids, their positions (from the row's
/// length) and a mask that shows the held slots and the new tokens and hides the empty ones.
/// The past inputs are not among them.
std::map<std::string, Tensor> decoderStepInputs(const DecoderSignature& signature, const ArtifactManifest& manifest,
                                                const Tensor& tokens, int64_t slots, std::span<const int64_t> lengths);
/// The inputs of a prefill of `prompt` ([rows, prompt length]): decoderStepInputs over no cache;
/// for a plan of a past-KV graph, its one past slot empty (zeros, masked).
std::map<std::string, Tensor> prefillInputs(const DecoderSignature& signature, const ArtifactManifest& manifest,
                                            const Tensor& prompt);
/// The last position's logits ([rows, vocab]) among a step's outputs (in `manifest`'s order).
Tensor lastLogits(const DecoderSignature& signature, const ArtifactManifest& manifest, const std::vector<Tensor>& outputs);
/// Writes `added`'s rows of entries along `axis` into `cache`'s rows from `firstRow` on, row r
/// from slot `slots[r]` (a host copy of what a session appends in device memory); a row whose
/// slot is negative is skipped.
void appendEntries(Tensor& cache, const Tensor& added, size_t axis, int64_t firstRow, std::span<const int64_t> slots);

class KvSession {
public:
    /// Loads the plans. Each of `prefills` (one per prompt length) was compiled with the new
    /// tokens' count at its prompt length and a past of one slot (masked: an empty cache), or is
    /// a prefill graph without a past; `decode` with one new token, a past of the cache's
    /// capacity and a batch that is a whole number of the prefills', its presents as appends
    /// (presentsAsAppends). The artifacts must outlive the session.
    KvSession(Runtime& runtime, driver::Driver& driver, std::span<const Artifact* const> prefills, const Artifact& decode,
              DecoderSignature signature);
    ~KvSession();
    KvSession(const KvSession&) = delete;
    KvSession& operator=(const KvSession&) = delete;

    /// Tokens each row's cache holds at most.
    int64_t capacity() const { return capacity_; }
    /// Requests the decode plan's rows hold, and rows (sequences) per request.
    int64_t requests() const { return rows_.requests(); }
    int64_t rowsPerRequest() const { return rows_.rowsPerRequest(); }
    /// Entries request `request`'s rows hold now.
    int64_t length(int64_t request) const { return rows_.length(request); }
    /// The caches' bytes in device memory (every layer's keys and values, every row, at capacity).
    uint64_t cacheBytes() const;
    /// Cache bytes per token of one sequence.
    uint64_t bytesPerToken() const;

    /// Runs request `request`'s prompt ([rows per request, prompt length] token ids) with the
    /// prefill plan of its length and fills its rows of the cache with its entries; InputError
    /// when they are not empty or no plan takes the prompt's length.
    StepOutput prefill(int64_t request, const Tensor& prompt);
    /// Runs one token per row ([requests x rows per request, 1]) against the caches and
    /// appends the entries of the rows of the `active` requests; the others' rows compute
    /// nothing anyone reads. InputError when an active request's cache is full or empty.
    StepOutput decode(const Tensor& tokens, const std::vector<bool>& active);

private:
    /// Writes the presents among `outputs` (of `manifest`) into the cache rows from `firstRow`
    /// on, each at its row's slot in `slots` (negative: skipped).
    void append(const ArtifactManifest& manifest, const std::vector<Tensor>& outputs, int64_t firstRow,
                std::span<const int64_t> slots);

    Runtime& runtime_;
    driver::Driver& driver_;
    DecoderSignature signature_;
    std::vector<LoadedModel> prefills_;
    LoadedModel decode_;
    int64_t capacity_ = 0;
    CacheRows rows_{1, 1, 1};  ///< the decode plan's rows
};

}  // namespace npusim::runtime
