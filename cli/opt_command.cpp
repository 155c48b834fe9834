// npusim opt FILE.ir [--pass NAME]... [--arch PRESET] [--precision P]: reads graph IR text, runs passes over it
// one at a time and prints the result, for trying a pass on a hand-written graph (and writing
// IR tests). Graph passes print graph IR; a tile pass lowers the graph to tiles for the arch
// first and prints tile IR; plan-memory prints the memory plan.
#include <iostream>
#include <memory>

#include "arch/error.h"
#include "arch/read_file.h"
#include "compiler/graph/parser.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/pipeline.h"
#include "cli/commands.h"

namespace npusim::cli {
namespace {

struct OptOptions {
    std::string file;
    std::vector<std::string> passes;
    std::string precision = "fp32";  ///< for the lower-precision pass
    ArchOptions arch;
};

}  // namespace

void addOptCommand(CLI::App& app) {
    CLI::App* opt = app.add_subcommand("opt", "run compiler passes over graph IR text and print the result");
    auto options = std::make_shared<OptOptions>();
    opt->add_option("file", options->file, "graph IR text (as --emit graph prints it)")->required();
    opt->add_option("--pass", options->passes,
                    "a pass to run, in the order given: graph passes, tile passes, plan-memory (default: every graph pass)");
    opt->add_option("--precision", options->precision, "the precision lower-precision lowers to: bf16, fp16")
        ->capture_default_str();
    options->arch.addTo(*opt);
    opt->callback([options] {
        const std::optional<compiler::Precision> precision = compiler::parsePrecision(options->precision);
        if (!precision || *precision == compiler::Precision::Int8) {
            throw InputError("--precision '" + options->precision + "' is not a precision (fp32, bf16, fp16)");
        }
        std::vector<std::string> passes = options->passes;
        if (passes.empty()) {
            for (const compiler::GraphPass& pass : compiler::graphPasses()) passes.emplace_back(pass.name);
        }
        const ArchConfig config = options->arch.load();
        const std::string text = readWholeFile(options->file);
        compiler::Graph graph;
        try {
            graph = compiler::parseGraph(text);
        } catch (const InputError& e) {
            throw InputError(options->file + ": " + e.what());
        }
        compiler::PrecisionOptions lowering;
        lowering.precision = *precision;
        std::cout << compiler::runStages(std::move(graph), config, passes, lowering);
    });
}

}  // namespace npusim::cli
