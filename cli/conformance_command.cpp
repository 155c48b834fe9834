// npusim conformance --suite DIR [--filter REGEX] [--json FILE] [--timeout S] [--arch ...]
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "arch/error.h"
#include "cli/commands.h"
#include "cli/conformance.h"
#include "cli/output_files.h"

namespace npusim::cli {
namespace {

struct ConformanceOptions {
    std::string suite, filter, json;
    unsigned timeoutSeconds = 300;
    ArchOptions arch;
};

nlohmann::json toJson(const CaseResult& r) {
    return {{"name", r.name},       {"status", caseStatusName(r.status)},
            {"reason", r.reason},   {"npu_ops", r.npuOps},
            {"cpu_ops", r.cpuOps},  {"cycles", r.cycles}};
}

void runConformance(const ConformanceOptions& o) {
    if (!o.json.empty()) checkOutputFile("--json", o.json);
    const ArchConfig config = o.arch.load();
    const auto cases = findCases(o.suite, o.filter);
    if (cases.empty()) throw InputError("no case under '" + o.suite + "' matches --filter '" + o.filter + "'");
    size_t passed = 0, failed = 0, skipped = 0;
    nlohmann::json records = nlohmann::json::array();
    for (const auto& directory : cases) {
        const CaseResult r = runConformanceCase(directory, config, {}, o.timeoutSeconds);
        if (r.status == CaseStatus::Passed) {
            ++passed;
            std::printf("passed  %-48s npu %u ops, cpu %u ops, %llu cycles\n", r.name.c_str(), r.npuOps, r.cpuOps,
                        static_cast<unsigned long long>(r.cycles));
        } else {
            ++(r.status == CaseStatus::Failed ? failed : skipped);
            std::printf("%-7s %-48s %s\n", std::string(caseStatusName(r.status)).c_str(), r.name.c_str(),
                        r.reason.c_str());
        }
        std::fflush(stdout);
        records.push_back(toJson(r));
    }
    std::printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
    if (!o.json.empty()) {
        OutputFiles files;
        files.stage(o.json, records.dump(2) + "\n");
        files.commit();
    }
    if (failed > 0) throw RunError(std::to_string(failed) + " of " + std::to_string(cases.size()) + " cases failed");
}

}  // namespace

void addConformanceCommand(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "conformance", "compile and simulate ONNX backend test cases and compare with their expected outputs");
    auto o = std::make_shared<ConformanceOptions>();
    command->add_option("--suite", o->suite, "directory of cases (e.g. /usr/share/libonnx-testdata/data/node)")
        ->required();
    command->add_option("--filter", o->filter, "run only cases whose name matches this regular expression");
    command->add_option("--json", o->json, "write one record per case to this file");
    command->add_option("--timeout", o->timeoutSeconds, "seconds a case may run before it counts as failed")
        ->capture_default_str();
    o->arch.addTo(*command);
    command->callback([o] { runConformance(*o); });
}

}  // namespace npusim::cli
