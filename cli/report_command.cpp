// npusim report RUN_DIR: rebuilds a run's plots, report.md and report.html from its report.json
// and trace.json (after a change to the report writers, or with a newer npusim).
// npusim diff RUN_A RUN_B [--json]: what changed between two runs, op by op.
#include <cstdio>
#include <iostream>
#include <memory>

#include "reports/report_diff.h"
#include "cli/commands.h"
#include "cli/report_directory.h"

namespace npusim::cli {

void addReportCommand(CLI::App& app) {
    CLI::App* command = app.add_subcommand("report", "rebuild a run's report.md, report.html and plots from its report.json and trace.json");
    auto directory = std::make_shared<std::string>();
    command->add_option("run_dir", *directory, "a directory written by npusim run --report DIR")->required();
    command->callback([directory] {
        const double plotSeconds = rebuildReportDirectory(*directory);
        std::printf("report: %s/report.md, report.html, plots/*.png (plots drawn in %.1f s)\n", directory->c_str(), plotSeconds);
    });
}

void addDiffCommand(CLI::App& app) {
    CLI::App* command = app.add_subcommand("diff", "compare two runs' reports op by op: cycles, bounds, findings");
    struct Options {
        std::string a, b;
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    command->add_option("run_a", o->a, "run directory (npusim run --report DIR) or its report.json")->required();
    command->add_option("run_b", o->b, "the run to compare with it")->required();
    command->add_flag("--json", o->json, "print the differences as JSON");
    command->callback([o] {
        const reports::ReportDiff diff = reports::diffReports(readReport(o->a), o->a, readReport(o->b), o->b);
        std::cout << (o->json ? reports::diffToJson(diff) : reports::diffToText(diff));
    });
}

}  // namespace npusim::cli
