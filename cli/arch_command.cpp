// npusim arch list | show PRESET|FILE, and the shared --arch/--set options.
#include <iostream>
#include <memory>

#include "cli/commands.h"

namespace npusim::cli {

void ArchOptions::addTo(CLI::App& command) {
    archOption = command.add_option("--arch", arch, "architecture preset name or JSON file")
                     ->capture_default_str();
    command.add_option("--set", overrides, "override a config field: path.to.field=value")
        ->take_all()
        ->allow_extra_args(false);
}

ArchConfig ArchOptions::load() const { return loadArchConfig(arch, overrides); }

void addArchCommand(CLI::App& app) {
    CLI::App* arch = app.add_subcommand("arch", "list presets or show a validated architecture config");
    arch->require_subcommand(1);

    CLI::App* list = arch->add_subcommand("list", "list the built-in presets");
    list->callback([] {
        for (const std::string& name : archPresetNames()) {
            const ArchConfig config = loadArchConfig(name, {});
            std::cout << name << "\t" << config.description << "\n";
        }
    });

    CLI::App* show = arch->add_subcommand("show", "print a validated config as JSON (all fields)");
    auto options = std::make_shared<ArchOptions>();
    show->add_option("config", options->arch, "preset name or JSON file")->required();
    show->add_option("--set", options->overrides, "override a config field: path.to.field=value")
        ->allow_extra_args(false);
    show->callback([options] {
        std::cout << archConfigFileToJson(toArchConfigFile(options->load())) << "\n";
    });
}

}  // namespace npusim::cli
