// What a generation request measured: time to first token, time per output token, tokens per
// second, the KV cache's bytes, DRAM traffic per token and each plan's bound against its
// rooflines; printed, and written as generation.json and generation.md (docs/LLM.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "arch/arch_config.h"
#include "cli/generation.h"

namespace npusim::cli {

/// A plan's rooflines over all its ops: the array's and the vector unit's fewest cycles, and
/// DRAM's for its compulsory bytes; `limit` names the largest ("array", "vector", "dram").
struct PlanBound {
    uint64_t array = 0, vector = 0, dram = 0;
    std::string limit;
    bool memoryBound() const { return limit == "dram"; }
};

struct GenerationMetrics {
    uint64_t firstTokenCycles = 0;  ///< the prefill step, host to host
    double perTokenMean = 0;        ///< decode steps' cycles, host to host
    uint64_t perTokenP50 = 0, perTokenP99 = 0;
    double tokensPerSecond = 0;        ///< all sequences' tokens over the decode steps' time
    double endToEndTokensPerSecond = 0;  ///< all new tokens over the whole request's time
    double dramBytesPerToken = 0;      ///< read and written per decode step and sequence
    /// The decode step's memory roofline: its weights and its cache read once at DRAM's peak.
    uint64_t weightBytes = 0;
    uint64_t memoryRooflineCycles = 0;
    PlanBound prefill, decode;
    std::optional<double> maxLogitError;  ///< with a check: over every step
    std::optional<bool> referenceAgrees;  ///< with a greedy check: every step's tokens
};

GenerationMetrics measureGeneration(const GenerationResult& result, const ArchConfig& config, const GenerationPlans& plans);

/// The figures as report.json's `generation` section (docs/LLM.md).
std::string generationJson(const GenerationRequest& request, const ArchConfig& config, const GenerationPlans& plans,
                           const GenerationResult& result, const GenerationMetrics& metrics);
/// generation.md: the summary and a table of steps.
std::string generationMarkdown(const GenerationRequest& request, const ArchConfig& config, const GenerationResult& result,
                               const GenerationMetrics& metrics);
/// The summary on stdout.
void printGeneration(const GenerationRequest& request, const ArchConfig& config, const GenerationResult& result,
                     const GenerationMetrics& metrics);

}  // namespace npusim::cli
