// Generation metrics, and the summary and files that show them.
#include "cli/generation_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <tuple>

#include "arch/byte_text.h"
#include "cli/output_files.h"
#include "cli/report_directory.h"
#include "reports/text_format.h"

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

/// Each step's energy from the traced run's events, priced by its own plan's ops; nullopt when
/// the run was not traced.
std::optional<GenerationEnergy> generationEnergy(const GenerationRequest& request, const ArchConfig& config,
                                                 const GenerationPlans& plans, const GenerationResult& result) {
    if (result.trace.events().empty()) return std::nullopt;
    GenerationEnergy energy;
    for (const GenerationStep& s : result.steps) {
        const compiler::Compilation& plan =
            s.prefill ? plans.prefillFor(request.promptLength(static_cast<size_t>(s.request))) : plans.decode;
        std::vector<reports::OpReport> ops;
        const reports::RunRecord run{config,     plan.artifact.manifest, result.trace,  s.job.startCycle, s.job.cycles,
                                     s.dramRead, s.dramWritten,          s.dramRowHits, s.dramRowMisses,  {},
                                     s.dramRowMisses};
        const double pj = reports::measureEnergy(run, ops).totalPj();
        energy.stepPj.push_back(pj);
        (s.prefill ? energy.prefillPj : energy.decodePj) += pj;
        if (!s.prefill) energy.decodeTokens += s.tokens.size();
    }
    return energy;
}

nlohmann::json boundJson(const PlanBound& b) {
    return {{"array_cycles", b.array}, {"vector_cycles", b.vector}, {"dram_cycles", b.dram}, {"limit", b.limit},
            {"bound", b.memoryBound() ? "memory" : "compute"}};
}

}  // namespace

GenerationMetrics measureGeneration(const GenerationRequest& request, const GenerationResult& result, const ArchConfig& config,
                                    const GenerationPlans& plans) {
    GenerationMetrics m;
    m.energy = generationEnergy(request, config, plans, result);
    m.prefill = planBound(plans.prefills.back().artifact.manifest, config);  // the longest prompt's
    m.decode = planBound(plans.decode.artifact.manifest, config);
    m.weightBytes = plans.decode.artifact.sectionBytes(kWeightsSection);
    uint64_t decodeCycles = 0, decodeBytes = 0, decodeTokens = 0, decodeSteps = 0;
    for (const GenerationStep& step : result.steps) {
        if (step.logitError) m.maxLogitError = std::max(m.maxLogitError.value_or(0), *step.logitError);
        if (step.referenceAgrees) m.referenceAgrees = m.referenceAgrees.value_or(true) && *step.referenceAgrees;
        if (step.prefill) continue;
        decodeCycles += step.cycles;
        decodeBytes += step.dramRead + step.dramWritten;
        decodeTokens += step.tokens.size();
        ++decodeSteps;
    }
    // A decode step reads the weights and its session's caches (every request's, when batched).
    m.memoryRooflineCycles =
        static_cast<uint64_t>(static_cast<double>(m.weightBytes + result.sessionCacheBytes) / config.dram.bytesPerCycle);
    if (decodeSteps > 0) {
        m.decodeStepMean = decodeCycles / decodeSteps;
        m.tokensPerSecond = static_cast<double>(decodeTokens) / (static_cast<double>(decodeCycles) / config.clockHz);
        m.dramBytesPerToken = static_cast<double>(decodeBytes) / static_cast<double>(decodeTokens);
    }
    std::vector<uint64_t> intervals;
    uint64_t last = result.startCycle, tokens = 0;
    for (const RequestRecord& r : result.requests) {
        RequestMetrics rm;
        if (r.tokenCycles.empty()) continue;
        rm.firstTokenCycles = r.tokenCycles.front() - result.startCycle;
        for (size_t i = 1; i < r.tokenCycles.size(); ++i) intervals.push_back(r.tokenCycles[i] - r.tokenCycles[i - 1]);
        if (r.tokenCycles.size() > 1) {
            rm.perTokenMean = static_cast<double>(r.tokenCycles.back() - r.tokenCycles.front()) /
                              static_cast<double>(r.tokenCycles.size() - 1);
        }
        uint64_t made = 0;
        for (const std::vector<int64_t>& sequence : r.tokens) made += sequence.size();
        rm.tokensPerSecond = static_cast<double>(made) / (static_cast<double>(r.tokenCycles.back() - result.startCycle) / config.clockHz);
        tokens += made;
        last = std::max(last, r.tokenCycles.back());
        m.firstTokenMean += static_cast<double>(rm.firstTokenCycles) / static_cast<double>(result.requests.size());
        m.requests.push_back(rm);
    }
    if (!intervals.empty()) {
        m.perTokenMean = std::accumulate(intervals.begin(), intervals.end(), 0.0) / static_cast<double>(intervals.size());
        std::sort(intervals.begin(), intervals.end());
        m.perTokenP50 = percentile(intervals, 50);
        m.perTokenP99 = percentile(intervals, 99);
    }
    if (last > result.startCycle) m.throughput = static_cast<double>(tokens) / (static_cast<double>(last - result.startCycle) / config.clockHz);
    return m;
}

std::string generationJson(const GenerationRequest& request, const ArchConfig& config, const GenerationPlans& plans,
                           const GenerationResult& result, const GenerationMetrics& m) {
    nlohmann::json energy;
    if (m.energy) {
        energy = {{"total_uj", (m.energy->prefillPj + m.energy->decodePj) * 1e-6},
                  {"prefill_uj", m.energy->prefillPj * 1e-6},
                  {"decode_uj_per_token", m.energy->decodePjPerToken() * 1e-6}};
    }
    nlohmann::json steps = nlohmann::json::array();
    for (size_t i = 0; i < result.steps.size(); ++i) {
        const GenerationStep& s = result.steps[i];
        nlohmann::json step = {{"phase", s.prefill ? "prefill" : "decode"},
                               {"request", s.request >= 0 ? nlohmann::json(s.request) : nlohmann::json("all")},
                               {"cache_length", s.cacheLength}, {"start_cycle", s.startCycle}, {"cycles", s.cycles},
                               {"job_cycles", s.job.cycles}, {"dram_bytes_read", s.dramRead},
                               {"dram_bytes_written", s.dramWritten},
                               {"bound", (s.prefill ? m.prefill : m.decode).memoryBound() ? "memory" : "compute"},
                               {"tokens", s.tokens}};
        step["logit_error"] = s.logitError ? nlohmann::json(*s.logitError) : nlohmann::json();
        step["energy_uj"] = m.energy ? nlohmann::json(m.energy->stepPj[i] * 1e-6) : nlohmann::json();
        steps.push_back(step);
    }
    nlohmann::json requests = nlohmann::json::array();
    for (size_t r = 0; r < result.requests.size(); ++r) {
        const RequestRecord& record = result.requests[r];
        std::vector<std::vector<int64_t>> prompt;
        const int64_t length = request.promptLength(r);
        for (int64_t b = 0; b < request.batch; ++b) {
            const auto row = record.prompt.begin() + b * length;
            prompt.emplace_back(row, row + length);
        }
        const RequestMetrics& rm = m.requests.at(r);
        requests.push_back({{"prompt", prompt}, {"tokens", record.tokens}, {"time_to_first_token_cycles", rm.firstTokenCycles},
                            {"time_per_output_token_mean_cycles", rm.perTokenMean}, {"tokens_per_second", rm.tokensPerSecond}});
    }
    nlohmann::json check;
    if (m.maxLogitError) {
        check = {{"max_logit_error", *m.maxLogitError},
                 {"tokens_agree", m.referenceAgrees ? nlohmann::json(*m.referenceAgrees) : nlohmann::json()}};
    }
    const nlohmann::json generation = {
        {"model", plans.decode.artifact.manifest.modelName},
        {"arch", config.name},
        {"precision", plans.decode.artifact.manifest.precision},
        {"prompt_lengths", request.promptLengths},
        {"new_tokens", request.newTokens},
        {"batch", request.batch},
        {"schedule", request.schedule},
        {"sampler", request.sampler},
        {"seed", request.seed},
        {"cache", {{"layout", "contiguous"}, {"capacity_tokens", result.capacity}, {"bytes", result.cacheBytes},
                   {"bytes_per_token", result.cacheBytesPerToken}, {"pairs", plans.signature.kv.size()}}},
        {"time_to_first_token", {{"cycles", m.firstTokenMean}, {"ms", milliseconds(m.firstTokenMean, config)}}},
        {"time_per_output_token", {{"mean_cycles", m.perTokenMean}, {"p50_cycles", m.perTokenP50}, {"p99_cycles", m.perTokenP99},
                                   {"mean_ms", milliseconds(m.perTokenMean, config)}}},
        {"tokens_per_second", m.tokensPerSecond},
        {"throughput_tokens_per_second", m.throughput},
        {"dram_bytes_per_token", m.dramBytesPerToken},
        {"decode_roofline", {{"weight_bytes", m.weightBytes}, {"cache_bytes", result.sessionCacheBytes},
                             {"memory_cycles", m.memoryRooflineCycles}, {"decode_step_cycles", m.decodeStepMean},
                             {"step_over_roofline", m.memoryRooflineCycles ? static_cast<double>(m.decodeStepMean) /
                                                                                 static_cast<double>(m.memoryRooflineCycles)
                                                                           : 0.0}}},
        {"plans", {{"prefill", boundJson(m.prefill)}, {"decode", boundJson(m.decode)}}},
        {"energy", energy},
        {"check", check},
        {"requests", requests},
        {"steps", steps}};
    return generation.dump();
}

void printGeneration(const GenerationRequest& request, const ArchConfig& config, const GenerationResult& result,
                     const GenerationMetrics& m) {
    const auto list = [](const std::vector<int64_t>& values) {
        std::string text;
        for (int64_t v : values) {
            if (!text.empty()) text += ',';
            text += std::to_string(v);
        }
        return text;
    };
    std::printf("generated %s tokens x %lld sequence(s) x %lld request(s) (%s) after %s-token prompts on %s "
                "(KV caches of %lld tokens, %.2f MiB)\n",
                list(request.newTokens).c_str(), static_cast<long long>(request.batch),
                static_cast<long long>(request.requests), request.schedule.c_str(), list(request.promptLengths).c_str(),
                config.name.c_str(), static_cast<long long>(result.capacity), static_cast<double>(result.cacheBytes) / (1 << 20));
    std::printf("  time to first token   %.0f cycles (%.3f ms)\n", m.firstTokenMean, milliseconds(m.firstTokenMean, config));
    std::printf("  time per output token mean %.0f, p50 %llu, p99 %llu cycles (%.3f ms)\n", m.perTokenMean,
                static_cast<unsigned long long>(m.perTokenP50), static_cast<unsigned long long>(m.perTokenP99),
                milliseconds(m.perTokenMean, config));
    std::printf("  tokens per second     %.1f in decode steps; throughput %.1f\n", m.tokensPerSecond, m.throughput);
    std::printf("  DRAM per token        %.2f MiB\n", m.dramBytesPerToken / (1 << 20));
    std::printf("  decode step           %llu cycles, %.2fx its memory roofline (weights + caches at DRAM's peak: %llu)\n",
                static_cast<unsigned long long>(m.decodeStepMean),
                m.memoryRooflineCycles ? static_cast<double>(m.decodeStepMean) / static_cast<double>(m.memoryRooflineCycles) : 0.0,
                static_cast<unsigned long long>(m.memoryRooflineCycles));
    std::printf("  prefill               %s\n", boundText(m.prefill).c_str());
    std::printf("  decode                %s\n", boundText(m.decode).c_str());
    if (m.energy) {
        std::printf("  energy                %.1f uJ per decode token; prefill %.1f uJ; %.1f uJ in all\n",
                    m.energy->decodePjPerToken() * 1e-6, m.energy->prefillPj * 1e-6,
                    (m.energy->prefillPj + m.energy->decodePj) * 1e-6);
    }
    if (m.maxLogitError) {
        std::printf("  check                 largest logit error %.2e of the largest logit%s\n", *m.maxLogitError,
                    m.referenceAgrees ? (*m.referenceAgrees ? "; greedy tokens agree" : "; greedy tokens DIFFER") : "");
    }
    for (size_t r = 0; r < result.requests.size(); ++r) {
        if (result.requests.size() > 1) {
            std::printf("  request %zu: first token %llu cycles, %.0f cycles per token, %.1f tokens per second\n", r,
                        static_cast<unsigned long long>(m.requests.at(r).firstTokenCycles), m.requests.at(r).perTokenMean,
                        m.requests.at(r).tokensPerSecond);
        }
        for (size_t b = 0; b < result.requests[r].tokens.size(); ++b) {
            std::printf("  tokens[%zu][%zu]:", r, b);
            for (int64_t t : result.requests[r].tokens[b]) std::printf(" %lld", static_cast<long long>(t));
            std::printf("\n");
        }
    }
}

namespace {

/// A copy of the events of `trace` in [from, to), with their units.
trace::Recorder window(const trace::Recorder& trace, uint64_t from, uint64_t to) {
    trace::Recorder part;
    for (const trace::UnitInfo& unit : trace.units()) part.addUnit(unit.name, unit.kind);
    for (const trace::Event& e : trace.events()) {
        if (e.start >= from && e.end <= to) part.record(e);
    }
    return part;
}

/// A memory-bound decode step, as a finding at the op that reads most of its bytes: the weight
/// and cache bytes every token reads against DRAM's bandwidth, and what would read fewer.
std::optional<reports::Finding> decodeFinding(const GenerationPlans& plans, const GenerationMetrics& m,
                                              const GenerationResult& result, const ArchConfig& config) {
    if (!m.decode.memoryBound() || plans.decode.artifact.manifest.ops.empty()) return std::nullopt;
    const std::vector<OpRecord>& ops = plans.decode.artifact.manifest.ops;
    const OpRecord& heaviest = *std::max_element(ops.begin(), ops.end(), [](const OpRecord& a, const OpRecord& b) {
        return a.minDramBytes < b.minDramBytes;
    });
    const uint64_t compute = std::max(m.decode.array, m.decode.vector);
    reports::Finding f;
    f.kind = "decode_memory_bound";
    f.op = heaviest.name;
    f.opId = heaviest.opId;
    f.cycles = m.decode.dram - compute;
    f.message = "each decode step reads " + bytesText(m.weightBytes) + " of weights and " + bytesText(result.sessionCacheBytes) +
                " of KV cache through DRAM at " + reports::fixedText(config.dram.bandwidthGbps, 1) + " GB/s: its compulsory bytes take " +
                std::to_string(m.decode.dram) + " cycles where its MACs and vector work need " + std::to_string(compute) +
                " (this op reads the most, " + bytesText(heaviest.minDramBytes) + ")";
    f.hint = "batched requests (--requests N --schedule batch) read the weights once for N tokens; narrower weights "
             "(--precision bf16) halve the bytes; more DRAM bandwidth (dram.bandwidth_gbps) shortens every step";
    return f;
}

}  // namespace

void writeGenerationReport(const std::filesystem::path& directory, const GenerationRequest& request,
                           const ArchConfig& config, const GenerationPlans& plans, GenerationResult& result,
                           const GenerationMetrics& metrics) {
    const auto planOf = [&](const GenerationStep& s) -> const compiler::Compilation& {
        return s.prefill ? plans.prefillFor(request.promptLength(static_cast<size_t>(s.request))) : plans.decode;
    };
    // The report proper is one step's: the last decode step (the prefill when there is none).
    const GenerationStep& step = result.steps.back();
    const trace::Recorder stepTrace = window(result.trace, step.startCycle, step.startCycle + step.cycles);
    reports::Report report = reports::buildReport({config, planOf(step).artifact.manifest, stepTrace, step.job.startCycle,
                                                   step.job.cycles, step.dramRead, step.dramWritten, step.dramRowHits,
                                                   step.dramRowMisses, {}, step.dramRowMisses});
    report.generation = generationJson(request, config, plans, result, metrics);
    if (std::optional<reports::Finding> f = decodeFinding(plans, metrics, result, config)) {
        const auto at = std::find_if(report.findings.begin(), report.findings.end(),
                                     [&](const reports::Finding& other) { return other.cycles < f->cycles; });
        report.findings.insert(at, std::move(*f));
    }

    // trace.json shows every step: each prefill plan's ops get ids after the decode plan's and
    // each other's, so each event is named by its own plan's op.
    ArtifactManifest all = plans.decode.artifact.manifest;
    std::map<const compiler::Compilation*, uint32_t> offsets;
    uint32_t next = 0;
    for (const OpRecord& op : all.ops) next = std::max(next, op.opId + 1);
    for (const compiler::Compilation& prefill : plans.prefills) {
        offsets[&prefill] = next;
        uint32_t last = next;
        for (OpRecord op : prefill.artifact.manifest.ops) {
            op.opId += offsets[&prefill];
            op.name = "prefill " + op.name;
            last = std::max(last, op.opId + 1);
            all.ops.push_back(op);
        }
        next = last;
    }
    std::vector<std::tuple<uint64_t, uint64_t, uint32_t>> prefills;  // a prefill's span and its plan's offset
    std::vector<reports::TraceSlice> slices;
    for (size_t i = 0; i < result.steps.size(); ++i) {
        const GenerationStep& s = result.steps[i];
        if (s.prefill) prefills.emplace_back(s.startCycle, s.startCycle + s.cycles, offsets.at(&planOf(s)));
        slices.push_back({(s.prefill ? "prefill request " + std::to_string(s.request) : "decode step " + std::to_string(i)) +
                              " (cache " + std::to_string(s.cacheLength) + ")",
                          s.startCycle, s.startCycle + s.cycles});
    }
    result.trace.changeEach([&](trace::Event& e) {
        for (const auto& [from, to, offset] : prefills) {
            if (e.start >= from && e.end <= to && e.type != trace::EventType::CommandFetch) e.opId += offset;
        }
    });
    const GenerationStep& first = result.steps.front();
    uint64_t read = 0, written = 0, hits = 0, misses = 0;
    for (const GenerationStep& s : result.steps) {
        read += s.dramRead;
        written += s.dramWritten;
        hits += s.dramRowHits;
        misses += s.dramRowMisses;
    }
    const reports::RunRecord run{config, all, result.trace, first.startCycle, step.startCycle + step.cycles - first.startCycle,
                                 read, written, hits, misses, slices};
    OutputFiles files;
    stageReportData(files, directory, report, run);
    files.commit();
    writeReadableReport(directory, report);
}

}  // namespace npusim::cli
