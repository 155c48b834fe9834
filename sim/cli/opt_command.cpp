// npusim opt FILE.ir [--pass NAME]...: reads graph IR text, runs graph passes over it and
// prints the result, for trying a pass on a hand-written graph (and writing IR tests).
#include <iostream>
#include <memory>

#include "arch/error.h"
#include "arch/read_file.h"
#include "compiler/graph/parser.h"
#include "compiler/graph/printer.h"
#include "compiler/passes/graph_pass.h"
#include "sim/cli/commands.h"

namespace npusim::cli {
namespace {

struct OptOptions {
    std::string file;
    std::vector<std::string> passes;
};

const compiler::GraphPass& findPass(const std::string& name) {
    std::string known;
    for (const compiler::GraphPass& pass : compiler::graphPasses()) {
        if (pass.name == name) return pass;
        known += (known.empty() ? "" : ", ") + std::string(pass.name);
    }
    throw InputError("unknown pass '" + name + "' (passes: " + known + ")");
}

}  // namespace

void addOptCommand(CLI::App& app) {
    CLI::App* opt = app.add_subcommand("opt", "run graph passes over graph IR text and print the result");
    auto options = std::make_shared<OptOptions>();
    opt->add_option("file", options->file, "graph IR text (as --emit graph prints it)")->required();
    opt->add_option("--pass", options->passes, "a pass to run, in the order given (default: every graph pass)");
    opt->callback([options] {
        std::vector<const compiler::GraphPass*> passes;
        for (const std::string& name : options->passes) passes.push_back(&findPass(name));
        if (passes.empty()) {
            for (const compiler::GraphPass& pass : compiler::graphPasses()) passes.push_back(&pass);
        }
        const std::string text = readWholeFile(options->file);
        compiler::Graph graph;
        try {
            graph = compiler::parseGraph(text);
        } catch (const InputError& e) {
            throw InputError(options->file + ": " + e.what());
        }
        for (const compiler::GraphPass* pass : passes) pass->run(graph);
        std::cout << compiler::printGraph(graph);
    });
}

}  // namespace npusim::cli
