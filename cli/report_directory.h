// A run's report directory: report.json and trace.json from the run, plots/*.png drawn from
// them by reports/plots.py, then report.md and report.html (the plots embedded).
#pragma once

#include <filesystem>

#include "reports/report.h"
#include "cli/output_files.h"

namespace npusim::cli {

/// Stages the run's report.json, trace.json, report.md and timeline.json (the timeline plot's
/// data) with the run's other outputs: all or none.
void stageReportData(OutputFiles& files, const std::filesystem::path& directory, const reports::Report& report,
                     const reports::RunRecord& run);
/// Once report.json and trace.json are in place: draws the plots, then writes report.html;
/// returns the host seconds the plots took (one Python process draws them all). RunError when
/// the plots cannot be drawn or a file cannot be written.
double writeReadableReport(const std::filesystem::path& directory, const reports::Report& report);

/// The report of a run directory (its report.json) or of a report.json file. InputError when it
/// is missing or not what npusim writes.
reports::Report readReport(const std::filesystem::path& runOrFile);

/// Rebuilds plots/, report.md and report.html from the directory's report.json and trace.json;
/// returns the plots' host seconds. InputError when they are missing or are not what npusim
/// writes.
double rebuildReportDirectory(const std::filesystem::path& directory);

}  // namespace npusim::cli
