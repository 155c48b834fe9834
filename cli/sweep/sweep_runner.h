// Running a sweep's unfinished points on a backend: local worker processes, or a Slurm job
// array. Each point runs in its own `npusim sweep-point` process that writes its row into
// the database, so the backends share one worker and one database, and a killed sweep keeps
// every point that finished.
#pragma once

#include <filesystem>
#include <string>

#include "cli/sweep/sweep_spec.h"

namespace npusim::cli {

struct SweepBackend {
    std::string kind = "local";  ///< local | slurm
    unsigned jobs = 0;           ///< concurrent points; 0: the number of cores
    std::string slurmOptions;    ///< extra sbatch options (e.g. "--partition=debug")
};

struct SweepOutcome {
    size_t points = 0, skipped = 0, ran = 0, failed = 0, lost = 0;  ///< lost: a worker ended without a row
};

/// Runs every point of `spec` that `database` does not hold yet, printing progress (a bar
/// on a terminal, lines otherwise). `executable` is the npusim binary the workers run.
SweepOutcome runSweep(const SweepSpec& spec, const std::filesystem::path& database, const SweepBackend& backend,
                      const std::filesystem::path& executable);

}  // namespace npusim::cli
