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
#include "compiler/pipeline.h"
#include "runtime/decoder_signature.h"

namespace npusim::cli {

struct GenerationRequest {
    std::filesystem::path model;
    int64_t promptLength = 0, newTokens = 0, batch = 1;
    int64_t capacity = 0;  ///< tokens the KV cache holds; 0: the prompt and the new tokens
    std::string sampler = "greedy";  ///< greedy (argmax) or random (softmax, seeded)
    uint64_t seed = 1;               ///< the prompt's token ids and the random sampler
    bool check = false;              ///< each step's logits against the reference interpreter
    uint64_t watchdog = 0;           ///< each job's cycle budget
};

/// The two plans of a decoder: the prompt over an empty cache, and one token over the cache.
struct GenerationPlans {
    runtime::DecoderSignature signature;
    compiler::Compilation prefill, decode;
    int64_t capacity = 0;
};

/// Reads the model's decoder signature and compiles both plans (InputError for a model that is
/// not a KV-cache decoder, or a request that does not fit it).
GenerationPlans compileGenerationPlans(const GenerationRequest& request, const ArchConfig& config,
                                       const compiler::CompileOptions& options);

/// One prefill or decode step as the request saw it.
struct GenerationStep {
    bool prefill = false;
    int64_t cacheLength = 0;  ///< entries the cache held when the step began
    uint64_t startCycle = 0, cycles = 0;  ///< host to host: inputs uploaded to entries appended
    uint64_t jobCycles = 0;               ///< the NPU's part
    uint64_t dramRead = 0, dramWritten = 0;
    std::vector<int64_t> tokens;  ///< the token chosen per sequence
    /// With a check: the largest |logit - reference| over the largest |reference|, and whether
    /// the reference's argmax is the chosen token for every sequence (greedy).
    std::optional<double> logitError;
    std::optional<bool> referenceAgrees;
};

struct GenerationResult {
    std::vector<int64_t> prompt;  ///< [batch, prompt length], row-major
    std::vector<GenerationStep> steps;
    uint64_t cacheBytes = 0, cacheBytesPerToken = 0;
    int64_t capacity = 0, vocab = 0;
};

/// Runs the request's prefill and decode steps in one co-simulation.
GenerationResult runGeneration(const GenerationRequest& request, const ArchConfig& config, const GenerationPlans& plans);

}  // namespace npusim::cli
