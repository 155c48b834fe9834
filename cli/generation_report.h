// What a generation request measured: time to first token, time per output token, tokens per
// second, the KV cache's bytes, DRAM traffic per token and each plan's bound against its
// rooflines; printed, and written as a report directory whose report.json has a `generation`
// section (docs/LLM.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

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

/// One request's own view: when its first token came, and how fast the others followed.
struct RequestMetrics {
    uint64_t firstTokenCycles = 0;  ///< from the requests' arrival (the first step's start)
    double perTokenMean = 0;        ///< between its consecutive tokens
    double tokensPerSecond = 0;     ///< its sequences' tokens over the time to its last
};

/// A traced generation's energy (each step's NPU job: dynamic energy and leakage, in pJ, priced
/// by its own plan's ops), the prompt's steps apart from the decode steps.
struct GenerationEnergy {
    std::vector<double> stepPj;  ///< per step, in order
    double prefillPj = 0, decodePj = 0;
    uint64_t decodeTokens = 0;
    double decodePjPerToken() const { return decodeTokens ? decodePj / static_cast<double>(decodeTokens) : 0; }
};

struct GenerationMetrics {
    std::vector<RequestMetrics> requests;
    double firstTokenMean = 0;  ///< over the requests
    double perTokenMean = 0;    ///< between consecutive tokens of a request, over every request
    uint64_t perTokenP50 = 0, perTokenP99 = 0;
    double tokensPerSecond = 0;      ///< tokens the decode steps made over their time
    double throughput = 0;           ///< every new token of every request over the whole run
    double dramBytesPerToken = 0;    ///< read and written by decode steps, per token they made
    /// The decode step's memory roofline: its weights and its caches read once at DRAM's peak.
    uint64_t weightBytes = 0;
    uint64_t memoryRooflineCycles = 0;
    uint64_t decodeStepMean = 0;  ///< a decode step's cycles, host to host
    PlanBound prefill, decode;
    std::optional<double> maxLogitError;  ///< with a check: over every step
    std::optional<bool> referenceAgrees;  ///< with a greedy check: every step's tokens
    std::optional<GenerationEnergy> energy;  ///< when the run was traced (a report was asked for)
};

GenerationMetrics measureGeneration(const GenerationRequest& request, const GenerationResult& result, const ArchConfig& config,
                                    const GenerationPlans& plans);

/// The figures as report.json's `generation` section (docs/LLM.md): the text of its object.
std::string generationJson(const GenerationRequest& request, const ArchConfig& config, const GenerationPlans& plans,
                           const GenerationResult& result, const GenerationMetrics& metrics);
/// The report directory of a traced generation: report.json (the last decode step's report,
/// with the `generation` section), report.md and report.html (the section, plots/tokens.png),
/// trace.json (every step's unit events, prefill ops named apart, and a track of steps) and
/// timeline.json. The prefill steps' events in `result.trace` take their plans' op ids there.
void writeGenerationReport(const std::filesystem::path& directory, const GenerationRequest& request,
                           const ArchConfig& config, const GenerationPlans& plans, GenerationResult& result,
                           const GenerationMetrics& metrics);
/// The summary on stdout.
void printGeneration(const GenerationRequest& request, const ArchConfig& config, const GenerationResult& result,
                     const GenerationMetrics& metrics);

}  // namespace npusim::cli
