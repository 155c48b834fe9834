// npusim sweep SPEC.json [--db sweep.sqlite] [--backend local|slurm] [--jobs N] [--baseline DB]
// npusim sweep-plot DB [-o DIR]
// npusim sweep-point SPEC --db DB --index I   (a worker: runs one point; used by the backends)
#include <cstdio>
#include <memory>
#include <optional>

#include "arch/error.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/python_script.h"
#include "cli/sweep/sweep_baseline.h"
#include "cli/sweep/sweep_point.h"
#include "cli/sweep/sweep_runner.h"

namespace npusim::cli {
namespace {

struct SweepOptions {
    std::string spec, database = "sweep.sqlite", baseline;
    double tolerance = 0.05;
    SweepBackend backend;
};

void reportBaseline(const SweepSpec& spec, const SweepOptions& o, const SweepDatabase& baseline) {
    std::vector<std::string> keys;
    for (const SweepPoint& point : expandSweep(spec)) keys.push_back(sweepPointKey(point, spec.timingOnly));
    const BaselineComparison comparison =
        compareWithBaseline(SweepDatabase(o.database), baseline, keys, o.tolerance);
    std::printf("baseline %s: %zu points compared, %zu not in it, %zu moved beyond %.1f%%\n", o.baseline.c_str(),
                comparison.compared, comparison.missing, comparison.moved.size(), o.tolerance * 100);
    for (const auto& moved : comparison.moved) {
        std::printf("  %-20s %s: %llu -> %llu cycles (%+.1f%%)\n", moved.row.model.c_str(), moved.row.params.c_str(),
                    static_cast<unsigned long long>(moved.baselineCycles),
                    static_cast<unsigned long long>(moved.row.totalCycles), moved.change * 100);
    }
    if (!comparison.moved.empty()) {
        throw RunError(std::to_string(comparison.moved.size()) + " points moved beyond " +
                       std::to_string(static_cast<int>(o.tolerance * 100 + 0.5)) + "% of the baseline's cycles");
    }
}

void sweep(const SweepOptions& o) {
    checkOutputFile("--db", o.database);
    if (!o.baseline.empty() && !std::filesystem::is_regular_file(o.baseline)) {
        throw InputError("--baseline '" + o.baseline + "' is not a sweep database");
    }
    // Checked before the sweep runs; only read.
    std::optional<SweepDatabase> baseline;
    if (!o.baseline.empty()) baseline.emplace(o.baseline, true);
    const SweepSpec spec = readSweepSpec(o.spec);
    const SweepOutcome outcome =
        runSweep(spec, o.database, o.backend, std::filesystem::read_symlink("/proc/self/exe"));
    std::printf("sweep: %zu points: %zu were done before, %zu ran (%zu failed to compile or run, %zu without a result)\n",
                outcome.points, outcome.skipped, outcome.ran, outcome.failed, outcome.lost);
    if (outcome.lost > 0) {
        throw RunError(std::to_string(outcome.lost) + " points ended without a result; run the sweep again to retry them");
    }
    if (baseline) reportBaseline(spec, o, *baseline);
}

}  // namespace

void addSweepCommands(CLI::App& app) {
    CLI::App* command = app.add_subcommand("sweep", "run a design-space sweep (docs/SWEEPS.md) into an SQLite database");
    auto o = std::make_shared<SweepOptions>();
    command->add_option("spec", o->spec, "sweep spec (JSON): models, base preset, axes")->required();
    command->add_option("--db", o->database, "SQLite database of the results; finished points are not rerun")
        ->capture_default_str();
    command->add_option("--backend", o->backend.kind, "local (worker processes) or slurm (a job array)")
        ->capture_default_str();
    command->add_option("--jobs", o->backend.jobs, "points run at once (default: the number of cores)");
    command->add_option("--slurm-options", o->backend.slurmOptions, "extra sbatch options, e.g. \"--partition=debug\"");
    command->add_option("--baseline", o->baseline, "a sweep database to compare cycles with, point by point");
    command->add_option("--tolerance", o->tolerance, "relative change in cycles a point may move without a flag")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 10.0));
    command->callback([o] { sweep(*o); });

    CLI::App* worker = app.add_subcommand("sweep-point", "run one point of a sweep into its database (the backends' worker)");
    worker->group("");  // internal: not listed in --help
    struct WorkerOptions {
        std::string spec, database;
        size_t index = 0;
    };
    auto w = std::make_shared<WorkerOptions>();
    worker->add_option("spec", w->spec)->required();
    worker->add_option("--db", w->database)->required();
    worker->add_option("--index", w->index)->required();
    worker->callback([w] {
        const SweepSpec spec = readSweepSpec(w->spec);
        const std::vector<SweepPoint> points = expandSweep(spec);
        if (w->index >= points.size()) {
            throw InputError("--index " + std::to_string(w->index) + ": the sweep has " + std::to_string(points.size()) + " points");
        }
        SweepDatabase db(w->database);
        if (db.has(sweepPointKey(points[w->index], spec.timingOnly))) return;
        db.insert(runSweepPoint(points[w->index], spec.timingOnly));
    });

    CLI::App* plot = app.add_subcommand("sweep-plot", "plot a sweep database: Pareto fronts and sensitivity per axis");
    auto database = std::make_shared<std::string>();
    auto output = std::make_shared<std::string>("sweep_plots");
    plot->add_option("db", *database, "sweep database")->required();
    plot->add_option("-o,--output", *output, "directory for the PNGs")->capture_default_str();
    plot->callback([database, output] {
        if (!std::filesystem::is_regular_file(*database)) throw InputError("'" + *database + "' is not a sweep database");
        checkOutputDirectory("-o", *output);
        runPythonScript(NPUSIM_SWEEP_PLOT_SCRIPT, {*database, *output}, "plotting the sweep");
        std::printf("sweep plots: %s/pareto.png (fronts in pareto.json), %s/sensitivity.png\n", output->c_str(), output->c_str());
    });
}

}  // namespace npusim::cli
