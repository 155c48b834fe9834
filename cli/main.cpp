// npusim: the command-line tool. main() silences the SystemC banner (noise in a tool's
// output) before SystemC starts, then hands over to SystemC, which calls sc_main.
#include <cstdlib>
#include <iostream>

#include <systemc>

#include "arch/error.h"
#include "cli/commands.h"
#include "cli/interrupts.h"

int sc_main(int argc, char* argv[]) {
    npusim::cli::installInterruptHandlers();
    CLI::App app{"npusim: NPU hardware-software co-design simulator", "npusim"};
    app.set_version_flag("--version", std::string("npusim ") + NPUSIM_VERSION);
    app.require_subcommand(1);
    npusim::cli::addArchCommand(app);
    npusim::cli::addCompileCommand(app);
    npusim::cli::addRunCommand(app);
    npusim::cli::addGenerateCommand(app);
    npusim::cli::addDisasmCommand(app);
    npusim::cli::addConformanceCommand(app);
    npusim::cli::addOptCommand(app);
    npusim::cli::addInspectCommand(app);
    npusim::cli::addReportCommand(app);
    npusim::cli::addDiffCommand(app);
    npusim::cli::addSweepCommands(app);
    npusim::cli::addCalibrateCommand(app);
    try {
        // CLI11 reports an unknown command only as a missing one; name it.
        if (argc > 1 && argv[1][0] != '-') {
            bool known = false;
            for (const CLI::App* command : app.get_subcommands({})) known = known || command->get_name() == argv[1];
            if (!known) {
                std::cerr << "npusim: error: unknown command '" << argv[1]
                          << "' (commands: arch, compile, run, report, diff, sweep, sweep-plot, calibrate, disasm, inspect, conformance, opt; see npusim --help)\n";
                return 2;
            }
        }
        app.parse(argc, argv);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "npusim: error: " << e.what() << " (see npusim --help)\n";
        return 2;
    } catch (const npusim::InputError& e) {
        std::cerr << "npusim: error: " << e.what() << "\n";
        return 2;
    } catch (const npusim::RunError& e) {
        std::cerr << "npusim: run failed: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "npusim: internal error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

int main(int argc, char* argv[]) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    return sc_core::sc_elab_and_sim(argc, argv);
}
