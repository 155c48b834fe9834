// `npusim generate`'s engine: a KV-cache decoder compiled as a prefill plan and a decode plan,
// run as one request through the runtime's KV session in a co-simulation, token by token, with
// each step's time, DRAM traffic and (on request) its logits against the reference interpreter.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "arch/arch_config.h"
#include "arch/trace_event.h"
#include "compiler/pipeline.h"
#include "driver/driver.h"
#include "runtime/decoder_signature.h"

namespace npusim::cli {

struct GenerationRequest {
    std::filesystem::path model;
    /// The prompt's model when it is a prefill graph of its own (no past inputs); empty: the
    /// model's past-KV graph runs the prompt too.
    std::filesystem::path prefillModel;
    /// Per request, or one value for every request: the prompt's tokens and the tokens to
    /// generate. A request whose tokens are all made leaves its rows to idle (continuous batching).
    std::vector<int64_t> promptLengths, newTokens;
    int64_t batch = 1;
    /// Concurrent requests, each of `batch` sequences with a prompt of its own, and how their
    /// steps share the NPU: "batch" (one decode plan whose rows they share, every decode step
    /// advancing all: continuous batching) or "round-robin" (a context and plans each, their
    /// steps taking turns).
    int64_t requests = 1;
    std::string schedule = "batch";
    int64_t capacity = 0;  ///< tokens the KV cache holds; 0: the prompt and the new tokens
    std::string sampler = "greedy";  ///< greedy (argmax) or random (softmax, seeded)
    uint64_t seed = 1;               ///< the prompt's token ids and the random sampler
    bool check = false;              ///< each step's logits against the reference interpreter
    bool trace = false;              ///< record every unit's events (for a report)
    uint64_t watchdog = 0;           ///< each job's cycle budget

    int64_t promptLength(size_t request) const { return promptLengths.size() == 1 ? promptLengths[0] : promptLengths.at(request); }
    int64_t newTokenCount(size_t request) const { return newTokens.size() == 1 ? newTokens[0] : newTokens.at(request); }
};

/// The plans of a decoder: the prompt over an empty cache (one per prompt length), and one token
/// over the cache (for every request's rows, when requests are batched).
struct GenerationPlans {
    runtime::DecoderSignature signature;
    std::vector<compiler::Compilation> prefills;  ///< one per prompt length, shortest first
    compiler::Compilation decode;
    int64_t capacity = 0;

    /// The prefill plan of a prompt length (one the request has).
    const compiler::Compilation& prefillFor(int64_t promptLength) const;
};

/// Reads the model's decoder signature and compiles both plans (InputError for a model that is
/// not a KV-cache decoder, or a request that does not fit it).
GenerationPlans compileGenerationPlans(const GenerationRequest& request, const ArchConfig& config,
                                       const compiler::CompileOptions& options);

/// One prefill or decode step.
struct GenerationStep {
    bool prefill = false;
    int64_t request = -1;     ///< the request it runs; -1 for a batched decode step of every request
    int64_t cacheLength = 0;  ///< entries the (first) request's cache held when the step began
    uint64_t startCycle = 0, cycles = 0;  ///< host to host: inputs uploaded to entries appended
    uint64_t dramRead = 0, dramWritten = 0;
    uint64_t dramRowHits = 0, dramRowMisses = 0;
    driver::JobResult job;        ///< the NPU's part: its first cycle and its cycles
    std::vector<int64_t> tokens;  ///< the token chosen per row it ran
    /// With a check: the largest |logit - reference| over the largest |reference|, and whether
    /// the reference's argmax is the chosen token for every row (greedy).
    std::optional<double> logitError;
    std::optional<bool> referenceAgrees;
};

/// What one request was given and generated.
struct RequestRecord {
    std::vector<int64_t> prompt;               ///< [batch, prompt length], row-major
    std::vector<std::vector<int64_t>> tokens;  ///< per sequence
    std::vector<uint64_t> tokenCycles;         ///< the cycle each new token was ready (its step's end)
};

struct GenerationResult {
    uint64_t startCycle = 0;  ///< every request arrives at the first step's start
    std::vector<GenerationStep> steps;
    std::vector<RequestRecord> requests;
    uint64_t cacheBytes = 0;          ///< every request's cache, in device memory
    uint64_t sessionCacheBytes = 0;   ///< the caches one decode step reads (its session's)
    uint64_t cacheBytesPerToken = 0;  ///< of one sequence
    int64_t capacity = 0, vocab = 0;
    trace::Recorder trace;  ///< every unit's events over the whole run, when the request traces
};

/// Runs the requests' prefill and decode steps in one co-simulation.
GenerationResult runGeneration(const GenerationRequest& request, const ArchConfig& config, const GenerationPlans& plans);

}  // namespace npusim::cli
