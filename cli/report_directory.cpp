#include "cli/report_directory.h"

#include <chrono>


#include "arch/error.h"
#include "arch/read_file.h"
#include "cli/python_script.h"
#include "cli/output_files.h"

namespace npusim::cli {
namespace {

/// Draws the directory's plots (reports/plots.py): plots/*.png.
void drawPlots(const std::filesystem::path& directory) {
    runPythonScript(NPUSIM_PLOTS_SCRIPT, {directory.string()}, "drawing the report's plots");
}

}  // namespace

double writeReadableReport(const std::filesystem::path& directory, const reports::Report& report) {
    const auto start = std::chrono::steady_clock::now();
    drawPlots(directory);
    const double plotSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<reports::Plot> plots;
    for (const char* name : {"timeline", "utilization", "op_cycles", "roofline", "tokens"}) {
        if (std::string(name) == "tokens" && !report.generation) continue;  // a generation's only
        plots.push_back({name, readWholeFile(directory / "plots" / (std::string(name) + ".png"))});
    }
    OutputFiles files;
    files.stage(directory / "report.html", reports::reportToHtml(report, plots));
    files.commit();
    return plotSeconds;
}

void stageReportData(OutputFiles& files, const std::filesystem::path& directory, const reports::Report& report,
                     const reports::RunRecord& run) {
    files.makeDirectory(directory);
    files.stage(directory / "report.json", reports::reportToJson(report));
    files.stage(directory / "trace.json", [&](std::ostream& out) { reports::writeChromeTrace(out, run); });
    files.stage(directory / "report.md", reports::reportToMarkdown(report));
    files.stage(directory / "timeline.json", reports::timelineToJson(run));
}

reports::Report readReport(const std::filesystem::path& runOrFile) {
    std::filesystem::path json = runOrFile;
    if (std::filesystem::is_directory(runOrFile)) {
        json = runOrFile / "report.json";
        if (!std::filesystem::is_regular_file(json)) {
            throw InputError("'" + runOrFile.string() + "' has no report.json (written by npusim run --report DIR)");
        }
    }
    return reports::reportFromJson(readWholeFile(json), json.string());
}

double rebuildReportDirectory(const std::filesystem::path& directory) {
    if (!std::filesystem::is_directory(directory)) {
        throw InputError("'" + directory.string() + "' is not a directory (a run's --report DIR)");
    }
    const reports::Report report = readReport(directory);
    if (!std::filesystem::is_regular_file(directory / "trace.json")) {
        throw InputError("'" + directory.string() + "' has no trace.json (written by npusim run --report DIR)");
    }
    const double plotSeconds = writeReadableReport(directory, report);
    OutputFiles files;
    files.stage(directory / "report.md", reports::reportToMarkdown(report));
    files.commit();
    return plotSeconds;
}

}  // namespace npusim::cli
