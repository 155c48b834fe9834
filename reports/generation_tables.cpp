// The readable reports' view of a generation (report.json's `generation`, docs/LLM.md).
#include <nlohmann/json.hpp>

#include "reports/report_tables.h"
#include "reports/text_format.h"

namespace npusim::reports {
namespace {

using Json = nlohmann::json;

std::string cycles(double value) { return std::to_string(static_cast<uint64_t>(value)); }

/// "128" or "128, 64": a value for every request, or one per request.
std::string list(const Json& values) {
    std::string text;
    for (const Json& value : values) {
        if (!text.empty()) text += ", ";
        text += std::to_string(value.get<int64_t>());
    }
    return text;
}

std::string boundLine(const std::string& plan, const Json& b) {
    return plan + " is " + b.at("bound").get<std::string>() + "-bound: DRAM " + cycles(b.at("dram_cycles").get<double>()) +
           " cycles for its compulsory bytes, array " + cycles(b.at("array_cycles").get<double>()) + ", vector " +
           cycles(b.at("vector_cycles").get<double>());
}

}  // namespace

std::vector<std::string> generationLines(const Report& r) {
    if (!r.generation) return {};
    const Json g = Json::parse(*r.generation);
    const Json& tpot = g.at("time_per_output_token");
    const Json& cache = g.at("cache");
    const Json& roof = g.at("decode_roofline");
    std::vector<std::string> lines = {
        std::to_string(g.at("requests").size()) + " request(s) (" + g.at("schedule").get<std::string>() + "): prompts of " +
            list(g.at("prompt_lengths")) + " tokens, " + list(g.at("new_tokens")) + " new tokens, batch " +
            std::to_string(g.at("batch").get<int64_t>()) + "; this report's ops and units are its last decode step's",
        "time to first token " + cycles(g.at("time_to_first_token").at("cycles").get<double>()) + " cycles; per output token mean " +
            cycles(tpot.at("mean_cycles").get<double>()) + ", p50 " + cycles(tpot.at("p50_cycles").get<double>()) + ", p99 " +
            cycles(tpot.at("p99_cycles").get<double>()) + " cycles",
        "tokens per second " + wholeText(g.at("tokens_per_second").get<double>()) + " in decode steps, throughput " +
            wholeText(g.at("throughput_tokens_per_second").get<double>()),
        "KV cache " + bytesText(cache.at("bytes").get<uint64_t>()) + " (" + cache.at("layout").get<std::string>() + ", " +
            std::to_string(cache.at("capacity_tokens").get<int64_t>()) + " tokens, " +
            bytesText(cache.at("bytes_per_token").get<uint64_t>()) + " per token of a sequence); DRAM per token " +
            bytesText(static_cast<uint64_t>(g.at("dram_bytes_per_token").get<double>())),
        "a decode step takes " + cycles(roof.at("decode_step_cycles").get<double>()) + " cycles, " +
            fixedText(roof.at("step_over_roofline").get<double>(), 2) + "x its memory roofline (weights " +
            bytesText(roof.at("weight_bytes").get<uint64_t>()) + " + caches " + bytesText(roof.at("cache_bytes").get<uint64_t>()) +
            " at DRAM's peak: " + cycles(roof.at("memory_cycles").get<double>()) + " cycles)",
        boundLine("prefill", g.at("plans").at("prefill")),
        boundLine("decode", g.at("plans").at("decode")),
    };
    if (const Json& e = g.at("energy"); !e.is_null()) {
        lines.push_back("energy " + fixedText(e.at("decode_uj_per_token").get<double>(), 1) + " uJ per decode token; prefill " +
                        fixedText(e.at("prefill_uj").get<double>(), 1) + " uJ; " + fixedText(e.at("total_uj").get<double>(), 1) +
                        " uJ in all");
    }
    return lines;
}

Table generationRequestsTable(const Report& r) {
    Table t{{"request", "first token (cycles)", "per token (cycles)", "tokens per second"}, {false, true, true, true}, {}, {}};
    if (!r.generation) return t;
    const Json g = Json::parse(*r.generation);
    for (size_t i = 0; i < g.at("requests").size(); ++i) {
        const Json& q = g.at("requests")[i];
        t.rows.push_back({std::to_string(i), cycles(q.at("time_to_first_token_cycles").get<double>()),
                          cycles(q.at("time_per_output_token_mean_cycles").get<double>()),
                          wholeText(q.at("tokens_per_second").get<double>())});
    }
    return t;
}

Table generationStepsTable(const Report& r) {
    Table t{{"step", "phase", "request", "cache", "cycles", "NPU cycles", "DRAM read", "DRAM written", "tokens"},
            {true, false, false, true, true, true, true, true, false}, {}, {}};
    if (!r.generation) return t;
    const Json g = Json::parse(*r.generation);
    for (size_t i = 0; i < g.at("steps").size(); ++i) {
        const Json& s = g.at("steps")[i];
        std::string tokens;
        for (const Json& token : s.at("tokens")) {
            if (!tokens.empty()) tokens += ' ';
            tokens += std::to_string(token.get<int64_t>());
        }
        t.rows.push_back({std::to_string(i), s.at("phase").get<std::string>(),
                          s.at("request").is_string() ? s.at("request").get<std::string>() : std::to_string(s.at("request").get<int64_t>()),
                          std::to_string(s.at("cache_length").get<int64_t>()), std::to_string(s.at("cycles").get<uint64_t>()),
                          std::to_string(s.at("job_cycles").get<uint64_t>()), bytesText(s.at("dram_bytes_read").get<uint64_t>()),
                          bytesText(s.at("dram_bytes_written").get<uint64_t>()), tokens});
    }
    return t;
}

}  // namespace npusim::reports
