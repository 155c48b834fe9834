// The npusim subcommands. Each registers itself on the CLI11 app; its callback throws
// InputError (exit 2) or RunError (exit 1) on failure.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "arch/arch_config.h"
#include "compiler/pipeline.h"

namespace npusim::cli {

/// --arch PRESET|FILE and repeated --set path=value, shared by every command that takes --arch.
struct ArchOptions {
    std::string arch = "edge";
    std::vector<std::string> overrides;
    bool archGiven() const { return archOption && archOption->count() > 0; }

    void addTo(CLI::App& command);
    ArchConfig load() const;

private:
    CLI::Option* archOption = nullptr;
};

/// Compiler options shared by compile and run: --no-fusion, --no-loops, --max-memory SIZE,
/// --dim NAME=SIZE, --cost-params FILE, --objective O, --precision P, --precision-override OP=P.
struct CompilerFlags {
    bool noFusion = false;
    bool noLoops = false;
    std::string precision;                   ///< --precision (empty: fp32, as the model declares)
    std::vector<std::string> precisionOverrides;  ///< OP=PRECISION
    std::string calibrateInputs;   ///< --calibrate-inputs DIR: a subdirectory of inputs per int8 calibration sample
    std::string calibration;       ///< --calibration minmax|percentile (empty: minmax)
    std::string activationScheme;  ///< --activation-scheme asymmetric|symmetric (empty: asymmetric)
    std::string maxMemory;          ///< --max-memory SIZE (empty: the default, 3/4 of the machine's RAM)
    /// The --max-memory limit in bytes.
    uint64_t maxMemoryBytes() const;
    std::vector<std::string> dims;  ///< NAME=SIZE for symbolic input dims
    std::string costParams;         ///< a file of npusim calibrate
    std::string objective;          ///< --objective cycles|energy|edp (empty: cycles)
    void addTo(CLI::App& command);
    compiler::CompileOptions options() const;
    /// The int8 options (`--calibrate-inputs`...), checked against the precision.
    void addQuantization(compiler::CompileOptions& options) const;
    /// Whether any flag was given (they apply only where a model is compiled).
    std::vector<std::string> given() const;
};

/// NAME=V1,V2,... into the name and its values; InputError naming `option` when malformed.
std::pair<std::string, std::vector<int64_t>> parseSizes(const std::string& text, const std::string& option);

void addArchCommand(CLI::App& app);
void addCompileCommand(CLI::App& app);
void addRunCommand(CLI::App& app);
void addGenerateCommand(CLI::App& app);
void addDisasmCommand(CLI::App& app);
void addConformanceCommand(CLI::App& app);
void addOptCommand(CLI::App& app);
void addInspectCommand(CLI::App& app);
void addReportCommand(CLI::App& app);
void addDiffCommand(CLI::App& app);
/// sweep, sweep-plot and the sweep's worker, sweep-point.
void addSweepCommands(CLI::App& app);
void addCalibrateCommand(CLI::App& app);

}  // namespace npusim::cli
