// npusim compile MODEL.onnx --arch ... -o OUT.npuart [--emit LEVEL] [--dump-ir DIR] [--estimate]
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include "arch/error.h"
#include "compiler/cost/cost_model.h"
#include "compiler/cost/cost_params.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/graph/op_table.h"
#include "compiler/pipeline.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/progress_line.h"
#include "cli/tensor_files.h"

namespace npusim::cli {
namespace {

struct CompileOptions {
    std::string model, output, emit, dumpIr, bucket;
    bool estimate = false, mapping = false;
    ArchOptions arch;
    CompilerFlags compiler;
};

const char* irLevelName(compiler::IrLevel level) {
    switch (level) {
        case compiler::IrLevel::Graph: return "graph";
        case compiler::IrLevel::Tile: return "tile";
        case compiler::IrLevel::Memory: return "mem";
        case compiler::IrLevel::Isa: return "isa";
    }
    return "ir";
}

/// Each op's estimate under the memory plan: transfers of resident intermediates are on chip.
void printEstimates(const compiler::Compilation& c, const ArchConfig& config, const compiler::CostParams& params) {
    const compiler::CostModel model(config, params, c.memory.residentValues());
    double total = 0, energy = 0;
    std::printf("%-24s %-14s %14s %16s\n", "op", "type", "est. cycles", "est. energy pJ");
    for (const compiler::TileOp& op : c.tiles.ops) {
        const uint32_t opId = compiler::tileOpId(op);
        const compiler::CostEstimate estimate = model.estimateTileOp(op);
        for (const OpRecord& record : c.artifact.manifest.ops) {
            if (record.opId != opId) continue;
            std::printf("%-24s %-14s %14.0f %16.0f\n", record.name.c_str(), record.type.c_str(), estimate.totalCycles,
                        estimate.energyPj);
        }
        total += estimate.totalCycles;
        energy += estimate.energyPj;
    }
    std::printf("%-24s %-14s %14.0f %16.0f\n", "total", "", total, energy);
}

/// --mapping of a model that does not import because of ops npusim lacks: its ops, which ones,
/// and every op npusim runs. A model that fails for another reason prints nothing here (its
/// error says why).
void printUnimportedMapping(const std::string& model) {
    std::vector<compiler::OnnxOpSupport> ops;
    try {
        ops = compiler::surveyOnnxOps(model);
    } catch (const InputError&) {
        return;  // not an ONNX model: the error says so
    }
    if (std::all_of(ops.begin(), ops.end(), [](const compiler::OnnxOpSupport& op) { return op.known; })) return;
    std::vector<compiler::OpMapping> rows;
    for (const compiler::OnnxOpSupport& op : ops) {
        rows.push_back({0, op.name, op.type, op.known ? "-" : "unsupported",
                        op.known ? "an op npusim has (placed once every op imports)" : "npusim has no such op", ""});
    }
    std::cout << compiler::printMapping(rows) << "\nnpusim runs these ONNX ops: " << compiler::supportedOpList() << "\n"
              << std::flush;
}

}  // namespace

std::pair<std::string, std::vector<int64_t>> parseSizes(const std::string& text, const std::string& option) {
    const size_t equals = text.find('=');
    const std::string name = text.substr(0, equals);
    if (equals == std::string::npos || name.empty()) {
        throw InputError(option + " '" + text + "': expected NAME=SIZE[,SIZE...]");
    }
    std::vector<int64_t> sizes;
    for (size_t start = equals + 1; start <= text.size();) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        int64_t size = 0;
        const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), size);
        if (item.empty() || error != std::errc() || end != item.data() + item.size() || size <= 0) {
            throw InputError(option + " '" + text + "': '" + item + "' is not a positive size");
        }
        sizes.push_back(size);
        start = comma + 1;
    }
    return {name, sizes};
}

void CompilerFlags::addTo(CLI::App& command) {
    command.add_flag("--no-fusion", noFusion, "keep every op's kernels apart (each intermediate is stored and reloaded between ops)");
    command.add_flag("--no-loops", noLoops, "write every command out instead of folding periodic runs into loop descriptors");
    command.add_option("--max-memory", maxMemory,
                       "host memory the compilation and simulation may take, e.g. 8G or 512M (default: 3/4 of this machine's RAM); a larger plan is refused");
    command.add_option("--dim", dims, "NAME=SIZE: the size of a symbolic input dim")->take_all();
    command.add_option("--cost-params", costParams, "the cost model's weights, fitted by npusim calibrate");
    command.add_option("--objective", objective,
                       "what the tile schedules minimise in the cost model: cycles (default), energy, or edp (energy x cycles)");
    command.add_option("--precision", precision,
                       "the GEMMs' and convolutions' precision: fp32 (as the model declares), bf16, fp16, int8 (with --calibrate-inputs)");
    command.add_option("--precision-override", precisionOverrides,
                       "OP=PRECISION: keep an op (by name, or every op of an ONNX type) at another precision")
        ->take_all();
    command.add_option("--calibrate-inputs", calibrateInputs,
                       "DIR: int8's calibration samples, one subdirectory per sample laid out as --inputs takes it");
    command.add_option("--calibration", calibration,
                       "how int8 sets activation ranges: minmax (default) or percentile (99.99th, the mean over the samples)");
    command.add_option("--activation-scheme", activationScheme,
                       "int8 activations: asymmetric (a zero point; default) or symmetric");
}

std::vector<std::string> CompilerFlags::given() const {
    std::vector<std::string> flags;
    if (noFusion) flags.push_back("--no-fusion");
    if (noLoops) flags.push_back("--no-loops");
    if (!costParams.empty()) flags.push_back("--cost-params");
    if (!objective.empty()) flags.push_back("--objective");
    if (!precision.empty()) flags.push_back("--precision");
    if (!precisionOverrides.empty()) flags.push_back("--precision-override");
    if (!calibrateInputs.empty()) flags.push_back("--calibrate-inputs");
    if (!calibration.empty()) flags.push_back("--calibration");
    if (!activationScheme.empty()) flags.push_back("--activation-scheme");
    return flags;
}

uint64_t CompilerFlags::maxMemoryBytes() const {
    if (maxMemory.empty()) {
        const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
        return pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) / 4 * 3 : 0;
    }
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(maxMemory.data(), maxMemory.data() + maxMemory.size(), value);
    const std::string unit(end, maxMemory.data() + maxMemory.size());
    const std::map<std::string, uint64_t> units = {{"", 1}, {"K", 1ull << 10}, {"M", 1ull << 20}, {"G", 1ull << 30}, {"T", 1ull << 40}};
    const auto scale = units.find(unit);
    if (error != std::errc() || end == maxMemory.data() || scale == units.end() || value == 0 ||
        value > UINT64_MAX / scale->second) {
        throw InputError("--max-memory '" + maxMemory + "' is not a size (bytes, or a number with K, M, G or T)");
    }
    return value * scale->second;
}

void CompilerFlags::addQuantization(compiler::CompileOptions& options) const {
    const bool int8 = options.precision.precision == compiler::Precision::Int8;
    if (!int8) {
        for (const auto& [flag, value] : {std::pair{"--calibrate-inputs", &calibrateInputs}, {"--calibration", &calibration},
                                          {"--activation-scheme", &activationScheme}}) {
            if (!value->empty()) throw InputError(std::string(flag) + " is for --precision int8");
        }
        return;
    }
    if (calibrateInputs.empty()) {
        throw InputError("--precision int8 needs --calibrate-inputs DIR (a subdirectory of inputs per calibration sample)");
    }
    compiler::QuantizationOptions& q = options.precision.quantization;
    if (!calibration.empty()) {
        const auto method = compiler::parseCalibrationMethod(calibration);
        if (!method) throw InputError("--calibration '" + calibration + "' is not a method (minmax, percentile)");
        q.method = *method;
    }
    if (!activationScheme.empty()) {
        const auto scheme = compiler::parseActivationScheme(activationScheme);
        if (!scheme) throw InputError("--activation-scheme '" + activationScheme + "' is not a scheme (asymmetric, symmetric)");
        q.scheme = *scheme;
    }
    options.calibrationInputs = [directory = std::filesystem::path(calibrateInputs)](const compiler::Graph& graph) {
        return readCalibrationSets(directory, graph);
    };
}

compiler::CompileOptions CompilerFlags::options() const {
    compiler::CompileOptions options;
    options.fusion = !noFusion;
    options.loops = !noLoops;
    options.maxMemoryBytes = maxMemoryBytes();
    if (!costParams.empty()) options.costParams = compiler::readCostParams(costParams);
    if (!objective.empty()) {
        const std::optional<compiler::Objective> o = compiler::parseObjective(objective);
        if (!o) throw InputError("--objective '" + objective + "' is not an objective (cycles, energy, edp)");
        options.costParams.objective = *o;
    }
    const auto precisionOf = [](const std::string& name, const std::string& where) {
        const std::optional<compiler::Precision> p = compiler::parsePrecision(name);
        if (!p || *p == compiler::Precision::Int8) {
            throw InputError(where + " '" + name + "' is not a precision an op can be kept at (fp32, bf16, fp16)");
        }
        return *p;
    };
    if (!precision.empty()) {
        const std::optional<compiler::Precision> p = compiler::parsePrecision(precision);
        if (!p) throw InputError("--precision '" + precision + "' is not a precision (" + compiler::precisionNames() + ")");
        options.precision.precision = *p;
    }
    addQuantization(options);
    for (const std::string& item : precisionOverrides) {
        const size_t equals = item.find('=');
        if (equals == std::string::npos || equals == 0) {
            throw InputError("--precision-override '" + item + "': expected OP=PRECISION (an op's name or type)");
        }
        options.precision.overrides[item.substr(0, equals)] = precisionOf(item.substr(equals + 1), "--precision-override");
    }
    for (const std::string& dim : dims) {
        const auto [name, sizes] = parseSizes(dim, "--dim");
        if (sizes.size() != 1) throw InputError("--dim '" + dim + "': give one size (buckets are compile --bucket)");
        options.dims[name] = sizes[0];
    }
    return options;
}

void addCompileCommand(CLI::App& app) {
    CLI::App* compile = app.add_subcommand("compile", "compile an ONNX model to an NPU artifact");
    auto options = std::make_shared<CompileOptions>();
    compile->add_option("model", options->model, "ONNX model file")->required();
    compile->add_option("-o,--output", options->output, "artifact file to write (.npuart)");
    compile->add_option("--emit", options->emit, "print the IR at one level: graph, tile, mem, isa")
        ->check(CLI::IsMember({"graph", "tile", "mem", "isa"}));
    compile->add_flag("--estimate", options->estimate, "print the cost model's cycles and energy per op");
    compile->add_option("--bucket", options->bucket,
                        "NAME=S1,S2,...: compile for each size of the symbolic dim NAME (shape buckets)");
    compile->add_option("--dump-ir", options->dumpIr,
                        "write the IR after every stage into DIR as NN-stage.level.txt (graph, tile, mem, isa)");
    compile->add_flag("--mapping", options->mapping,
                      "print where each op runs and why (also when some op cannot run)");
    options->arch.addTo(*compile);
    options->compiler.addTo(*compile);
    compile->callback([options] {
        if (options->output.empty() && options->emit.empty() && options->dumpIr.empty() && !options->estimate &&
            !options->mapping) {
            throw InputError("compile: give -o OUT.npuart (or --emit / --dump-ir / --estimate / --mapping to only inspect)");
        }
        if (!options->output.empty()) checkOutputFile("-o", options->output);
        if (!options->dumpIr.empty()) checkOutputDirectory("--dump-ir", options->dumpIr);
        const ArchConfig config = options->arch.load();
        compiler::CompileOptions compileOptions = options->compiler.options();
        // Every stage's IR and the artifact, written only when the whole compilation succeeds.
        OutputFiles files;
        if (!options->dumpIr.empty()) {
            files.makeDirectory(options->dumpIr);
            compileOptions.dump = [&, stage = 0](std::string_view name, compiler::IrLevel level,
                                                 const std::string& text) mutable {
                char number[8];
                std::snprintf(number, sizeof number, "%02d-", stage++);
                const std::string file = std::string(number) + std::string(name) + "." + irLevelName(level) + ".txt";
                files.stage(std::filesystem::path(options->dumpIr) / file, text);
            };
        }
        compiler::Compilation compilation;
        const ProgressLine progress("compiling " + options->model);
        try {
            if (options->bucket.empty()) {
                compilation = compiler::compileModel(options->model, config, compileOptions);
            } else {
                auto [symbol, sizes] = parseSizes(options->bucket, "--bucket");
                compilation = compiler::compileBuckets(options->model, config, symbol, std::move(sizes), compileOptions);
            }
        } catch (const compiler::MappingError& e) {
            if (options->mapping) std::cout << compiler::printMapping(e.mapping) << std::flush;
            throw;
        } catch (const InputError&) {
            if (options->mapping) printUnimportedMapping(options->model);
            throw;
        }
        if (options->mapping) std::cout << compiler::printMapping(compilation.mapping);
        const std::map<std::string, compiler::IrLevel> levels = {
            {"graph", compiler::IrLevel::Graph}, {"tile", compiler::IrLevel::Tile},
            {"mem", compiler::IrLevel::Memory}, {"isa", compiler::IrLevel::Isa}};
        if (!options->emit.empty()) std::cout << compiler::printIr(compilation, levels.at(options->emit));
        if (!options->output.empty()) {
            const std::vector<std::byte> bytes = serializeArtifact(compilation.artifact);
            files.stage(options->output, [&](std::ostream& out) {
                out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
            });
        }
        files.commit();
        if (options->estimate) printEstimates(compilation, config, compileOptions.costParams);
        if (!options->output.empty()) {
            std::cerr << "npusim: wrote " << options->output << " ("
                      << compiler::commandCount(compilation) << " commands, arch " << config.name << ")\n";
        }
    });
}

}  // namespace npusim::cli
