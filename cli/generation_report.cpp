// Generation metrics, and the summary and files that show them.
#include "cli/generation_report.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

namespace npusim::cli {
namespace {

PlanBound planBound(const ArtifactManifest& manifest, const ArchConfig& config) {
    PlanBound b;
    uint64_t dramBytes = 0;
    for (const OpRecord& op : manifest.ops) {
        b.array += op.bounds.array;
        b.vector += op.bounds.vector;
        dramBytes += op.minDramBytes;
    }
    b.dram = static_cast<uint64_t>(static_cast<double>(dramBytes) / config.dram.bytesPerCycle);
    b.limit = b.dram >= std::max(b.array, b.vector) ? "dram" : b.array >= b.vector ? "array" : "vector";
    return b;
}

/// The nearest-rank percentile of sorted values.
uint64_t percentile(const std::vector<uint64_t>& sorted, double p) {
    if (sorted.empty()) return 0;
    const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

double milliseconds(double cycles, const ArchConfig& config) { return cycles / config.clockHz * 1e3; }

std::string boundText(const PlanBound& b) {
    return b.memoryBound() ? "memory-bound (DRAM " + std::to_string(b.dram) + " cycles > compute " +
                                 std::to_string(std::max(b.array, b.vector)) + ")"
                           : "compute-bound (" + b.limit + " " + std::to_string(std::max(b.array, b.vector)) + " cycles >= DRAM " +
                                 std::to_string(b.dram) + ")";
}

nlohmann::json boundJson(const PlanBound& b) {
    return {{"array_cycles", b.array}, {"vector_cycles", b.vector}, {"dram_cycles", b.dram}, {"limit", b.limit},
            {"bound", b.memoryBound() ? "memory" : "compute"}};
}

/// Per sequence, the tokens chosen step by step.
std::vector<std::vector<int64_t>> tokensPerSequence(const GenerationResult& result) {
    std::vector<std::vector<int64_t>> rows;
    for (const GenerationStep& step : result.steps) {
        rows.resize(step.tokens.size());
        for (size_t b = 0; b < step.tokens.size(); ++b) rows[b].push_back(step.tokens[b]);
    }
    return rows;
}

}  // namespace

GenerationMetrics measureGeneration(const GenerationResult& result, const ArchConfig& config, const GenerationPlans& plans) {
    GenerationMetrics m;
    m.prefill = planBound(plans.prefill.artifact.manifest, config);
    m.decode = planBound(plans.decode.artifact.manifest, config);
    m.weightBytes = plans.decode.artifact.sectionBytes(kWeightsSection);
    m.memoryRooflineCycles = static_cast<uint64_t>(static_cast<double>(m.weightBytes + result.cacheBytes) / config.dram.bytesPerCycle);
    std::vector<uint64_t> decode;
    uint64_t decodeBytes = 0;
    for (const GenerationStep& step : result.steps) {
        if (step.logitError) m.maxLogitError = std::max(m.maxLogitError.value_or(0), *step.logitError);
        if (step.referenceAgrees) m.referenceAgrees = m.referenceAgrees.value_or(true) && *step.referenceAgrees;
        if (step.prefill) {
            m.firstTokenCycles = step.cycles;
            continue;
        }
        decode.push_back(step.cycles);
        decodeBytes += step.dramRead + step.dramWritten;
    }
    const double batch = result.steps.empty() ? 1 : static_cast<double>(result.steps.front().tokens.size());
    if (!decode.empty()) {
        const double total = std::accumulate(decode.begin(), decode.end(), 0.0);
        m.perTokenMean = total / static_cast<double>(decode.size());
        m.tokensPerSecond = batch * static_cast<double>(decode.size()) / (total / config.clockHz);
        m.dramBytesPerToken = static_cast<double>(decodeBytes) / static_cast<double>(decode.size()) / batch;
        std::sort(decode.begin(), decode.end());
        m.perTokenP50 = percentile(decode, 50);
        m.perTokenP99 = percentile(decode, 99);
    }
    if (!result.steps.empty()) {
        const GenerationStep& last = result.steps.back();
        const double span = static_cast<double>(last.startCycle + last.cycles - result.steps.front().startCycle);
        m.endToEndTokensPerSecond = batch * static_cast<double>(result.steps.size()) / (span / config.clockHz);
    }
    return m;
}

std::string generationJson(const GenerationRequest& request, const ArchConfig& config, const GenerationPlans& plans,
                           const GenerationResult& result, const GenerationMetrics& m) {
    nlohmann::json steps = nlohmann::json::array();
    for (const GenerationStep& s : result.steps) {
        nlohmann::json step = {{"phase", s.prefill ? "prefill" : "decode"}, {"cache_length", s.cacheLength},
                               {"start_cycle", s.startCycle}, {"cycles", s.cycles}, {"job_cycles", s.jobCycles},
                               {"dram_bytes_read", s.dramRead}, {"dram_bytes_written", s.dramWritten},
                               {"bound", (s.prefill ? m.prefill : m.decode).memoryBound() ? "memory" : "compute"},
                               {"tokens", s.tokens}};
        step["logit_error"] = s.logitError ? nlohmann::json(*s.logitError) : nlohmann::json();
        steps.push_back(step);
    }
    std::vector<std::vector<int64_t>> prompt;
    for (int64_t b = 0; b < request.batch; ++b) {
        const auto row = result.prompt.begin() + b * request.promptLength;
        prompt.emplace_back(row, row + request.promptLength);
    }
    nlohmann::json check;
    if (m.maxLogitError) check = {{"max_logit_error", *m.maxLogitError}, {"tokens_agree", m.referenceAgrees ? nlohmann::json(*m.referenceAgrees) : nlohmann::json()}};
    const nlohmann::json generation = {
        {"model", plans.decode.artifact.manifest.modelName},
        {"arch", config.name},
        {"precision", plans.decode.artifact.manifest.precision},
        {"prompt_length", request.promptLength},
        {"new_tokens", request.newTokens},
        {"batch", request.batch},
        {"sampler", request.sampler},
        {"seed", request.seed},
        {"cache", {{"layout", "contiguous"}, {"capacity_tokens", result.capacity}, {"bytes", result.cacheBytes},
                   {"bytes_per_token", result.cacheBytesPerToken}, {"pairs", plans.signature.kv.size()}}},
        {"time_to_first_token", {{"cycles", m.firstTokenCycles}, {"ms", milliseconds(static_cast<double>(m.firstTokenCycles), config)}}},
        {"time_per_output_token", {{"mean_cycles", m.perTokenMean}, {"p50_cycles", m.perTokenP50}, {"p99_cycles", m.perTokenP99},
                                   {"mean_ms", milliseconds(m.perTokenMean, config)}}},
        {"tokens_per_second", m.tokensPerSecond},
        {"end_to_end_tokens_per_second", m.endToEndTokensPerSecond},
        {"dram_bytes_per_token", m.dramBytesPerToken},
        {"decode_roofline", {{"weight_bytes", m.weightBytes}, {"cache_bytes", result.cacheBytes},
                             {"memory_cycles", m.memoryRooflineCycles},
                             {"time_per_token_over_roofline", m.memoryRooflineCycles ? m.perTokenMean / static_cast<double>(m.memoryRooflineCycles) : 0.0}}},
        {"plans", {{"prefill", boundJson(m.prefill)}, {"decode", boundJson(m.decode)}}},
        {"check", check},
        {"prompt", prompt},
        {"tokens", tokensPerSequence(result)},
        {"steps", steps}};
    return nlohmann::json{{"generation", generation}}.dump(2) + "\n";
}

std::string generationMarkdown(const GenerationRequest& request, const ArchConfig& config, const GenerationResult& result,
                               const GenerationMetrics& m) {
    std::ostringstream md;
    md << "# Generation: " << request.model.stem().string() << " on " << config.name << "\n\n"
       << "A " << request.promptLength << "-token prompt, " << request.newTokens << " new tokens, batch " << request.batch
       << ", " << request.sampler << " sampling; KV cache of " << result.capacity << " tokens ("
       << result.cacheBytes << " bytes, " << result.cacheBytesPerToken << " per token).\n\n"
       << "| metric | value |\n|---|---|\n"
       << "| time to first token | " << m.firstTokenCycles << " cycles (" << milliseconds(static_cast<double>(m.firstTokenCycles), config) << " ms) |\n"
       << "| time per output token | mean " << static_cast<uint64_t>(m.perTokenMean) << ", p50 " << m.perTokenP50 << ", p99 "
       << m.perTokenP99 << " cycles |\n"
       << "| tokens per second | " << m.tokensPerSecond << " (end to end " << m.endToEndTokensPerSecond << ") |\n"
       << "| DRAM bytes per token | " << static_cast<uint64_t>(m.dramBytesPerToken) << " |\n"
       << "| decode memory roofline | " << m.memoryRooflineCycles << " cycles (weights " << m.weightBytes << " + cache "
       << result.cacheBytes << " bytes) |\n"
       << "| prefill | " << boundText(m.prefill) << " |\n"
       << "| decode | " << boundText(m.decode) << " |\n";
    if (m.maxLogitError) md << "| check | largest logit error " << *m.maxLogitError << " of the largest logit |\n";
    md << "\n| step | phase | cache | cycles | NPU cycles | DRAM read | DRAM written | tokens |\n|---|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < result.steps.size(); ++i) {
        const GenerationStep& s = result.steps[i];
        md << "| " << i << " | " << (s.prefill ? "prefill" : "decode") << " | " << s.cacheLength << " | " << s.cycles << " | "
           << s.jobCycles << " | " << s.dramRead << " | " << s.dramWritten << " |";
        for (int64_t t : s.tokens) md << " " << t;
        md << " |\n";
    }
    return md.str();
}

void printGeneration(const GenerationRequest& request, const ArchConfig& config, const GenerationResult& result,
                     const GenerationMetrics& m) {
    std::printf("generated %lld tokens x %lld after a %lld-token prompt on %s (KV cache %lld tokens, %.2f MiB)\n",
                static_cast<long long>(request.newTokens), static_cast<long long>(request.batch),
                static_cast<long long>(request.promptLength), config.name.c_str(), static_cast<long long>(result.capacity),
                static_cast<double>(result.cacheBytes) / (1 << 20));
    std::printf("  time to first token   %llu cycles (%.3f ms)\n", static_cast<unsigned long long>(m.firstTokenCycles),
                milliseconds(static_cast<double>(m.firstTokenCycles), config));
    std::printf("  time per output token mean %.0f, p50 %llu, p99 %llu cycles (%.3f ms)\n", m.perTokenMean,
                static_cast<unsigned long long>(m.perTokenP50), static_cast<unsigned long long>(m.perTokenP99),
                milliseconds(m.perTokenMean, config));
    std::printf("  tokens per second     %.1f (end to end %.1f)\n", m.tokensPerSecond, m.endToEndTokensPerSecond);
    std::printf("  DRAM per token        %.2f MiB; memory roofline %llu cycles, time per token %.2fx of it\n",
                m.dramBytesPerToken / (1 << 20), static_cast<unsigned long long>(m.memoryRooflineCycles),
                m.memoryRooflineCycles ? m.perTokenMean / static_cast<double>(m.memoryRooflineCycles) : 0.0);
    std::printf("  prefill               %s\n", boundText(m.prefill).c_str());
    std::printf("  decode                %s\n", boundText(m.decode).c_str());
    if (m.maxLogitError) {
        std::printf("  check                 largest logit error %.2e of the largest logit%s\n", *m.maxLogitError,
                    m.referenceAgrees ? (*m.referenceAgrees ? "; greedy tokens agree" : "; greedy tokens DIFFER") : "");
    }
    const std::vector<std::vector<int64_t>> rows = tokensPerSequence(result);
    for (size_t b = 0; b < rows.size(); ++b) {
        std::printf("  tokens[%zu]:", b);
        for (int64_t t : rows[b]) std::printf(" %lld", static_cast<long long>(t));
        std::printf("\n");
    }
}

}  // namespace npusim::cli
