// npusim generate MODEL.onnx --prompt-len P --new-tokens T [--batch B] [--capacity C] [--check] [--report DIR]
#include <memory>

#include "arch/error.h"
#include "cli/commands.h"
#include "cli/generation.h"
#include "cli/generation_report.h"
#include "cli/output_files.h"
#include "cli/progress_line.h"
#include "runtime/runtime.h"
#include "sim/cosim.h"

namespace npusim::cli {
namespace {

/// At fp32 the NPU computes each step's logits as the interpreter does, within rounding: the
/// largest difference over the largest logit.
constexpr double kLogitTolerance = 1e-3;

struct GenerateOptions {
    GenerationRequest request;
    std::string model, report;
    ArchOptions arch;
    CompilerFlags compiler;
};

void generate(GenerateOptions& o) {
    if (o.model.ends_with(".npuart")) {
        throw InputError("generate compiles a decoder's prefill and decode plans from its ONNX model; '" + o.model +
                         "' is an artifact");
    }
    if (!o.report.empty()) checkOutputDirectory("--report", o.report);
    o.request.model = o.model;
    o.request.trace = !o.report.empty();
    const ArchConfig config = o.arch.load();
    GenerationPlans plans = [&] {
        const ProgressLine progress("compiling " + o.model + " (prefill and decode)");
        return compileGenerationPlans(o.request, config, o.compiler.options());
    }();
    sim::checkSimulationMemory(plans.decode.artifact, o.compiler.maxMemoryBytes());
    for (const compiler::Compilation& prefill : plans.prefills) {
        sim::checkSimulationMemory(prefill.artifact, o.compiler.maxMemoryBytes());
    }
    GenerationResult result = runGeneration(o.request, config, plans);
    const GenerationMetrics metrics = measureGeneration(o.request, result, config, plans);
    printGeneration(o.request, config, result, metrics);
    if (!o.report.empty()) writeGenerationReport(o.report, o.request, config, plans, result, metrics);
    if (o.request.check && plans.decode.artifact.manifest.precision == "fp32") {
        if (metrics.maxLogitError && *metrics.maxLogitError > kLogitTolerance) {
            throw RunError("the logits differ from the reference interpreter's by " + std::to_string(*metrics.maxLogitError) +
                           " of the largest, more than " + std::to_string(kLogitTolerance));
        }
        if (metrics.referenceAgrees && !*metrics.referenceAgrees) {
            throw RunError("the greedy tokens differ from the reference interpreter's");
        }
    }
}

}  // namespace

void addGenerateCommand(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "generate", "run a decoder with a KV cache: a prompt's prefill, then one decode step per new token");
    auto o = std::make_shared<GenerateOptions>();
    o->request.watchdog = runtime::kDefaultJobTimeoutCycles;
    command->add_option("model", o->model, "ONNX decoder with past key/value inputs and present outputs")->required();
    command->add_option("--prefill-model", o->request.prefillModel,
                        "the prompt's own ONNX graph, without past inputs (the other form exporters write)");
    command->add_option("--prompt-len", o->request.promptLengths,
                        "the prompt's tokens (seeded random ids): one length, or one per request (128,64)")
        ->required()
        ->delimiter(',');
    command->add_option("--new-tokens", o->request.newTokens, "tokens to generate: one count, or one per request")
        ->required()
        ->delimiter(',');
    command->add_option("--batch", o->request.batch, "sequences per request, generated together")->capture_default_str();
    command->add_option("--requests", o->request.requests, "concurrent requests, each with prompts of its own")
        ->capture_default_str();
    command->add_option("--schedule", o->request.schedule,
                        "how requests share the NPU: batch (their decode steps batched in one plan's rows: continuous "
                        "batching) or round-robin (a context each, their steps taking turns)")
        ->capture_default_str();
    command->add_option("--capacity", o->request.capacity,
                        "tokens the KV cache holds (default: the prompt and the new tokens)");
    command->add_option("--sampler", o->request.sampler, "greedy (argmax) or random (from the softmax, seeded)")
        ->capture_default_str();
    command->add_option("--seed", o->request.seed, "seed of the prompt's ids and the random sampler")->capture_default_str();
    command->add_flag("--check", o->request.check,
                      "compare every step's logits with the reference interpreter run on the same tokens");
    command->add_option("--report", o->report,
                        "directory to write report.json (the last decode step's, with a generation section), report.md, "
                        "report.html, trace.json (every step), timeline.json, plots/");
    command->add_option("--watchdog", o->request.watchdog, "each job's cycle budget (the firmware's watchdog)")
        ->capture_default_str()
        ->check(CLI::Range(uint64_t{1000}, uint64_t{1} << 40));
    o->arch.addTo(*command);
    o->compiler.addTo(*command);
    command->callback([o] { generate(*o); });
}

}  // namespace npusim::cli
