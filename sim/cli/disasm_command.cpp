// npusim disasm ARTIFACT: the command stream as assembler text, one command per line.
#include <cstdio>
#include <iostream>
#include <memory>

#include "arch/artifact.h"
#include "arch/error.h"
#include "arch/isa.h"
#include "sim/cli/commands.h"

namespace npusim::cli {

void addDisasmCommand(CLI::App& app) {
    CLI::App* disasm = app.add_subcommand("disasm", "print an artifact's command stream");
    auto path = std::make_shared<std::string>();
    disasm->add_option("artifact", *path, "artifact file (.npuart)")->required();
    disasm->callback([path] {
        const Artifact artifact = readArtifact(*path);
        const auto section = artifact.sections.find(kCommandsSection);
        if (section == artifact.sections.end()) {
            throw InputError("artifact '" + *path + "' has no command stream");
        }
        const std::vector<isa::Command> commands = isa::decodeStream(section->second);
        char index[32];
        for (size_t i = 0; i < commands.size(); ++i) {
            std::snprintf(index, sizeof index, "%6zu  ", i);
            std::cout << index << isa::disassemble(commands[i]) << "\n";
        }
    });
}

}  // namespace npusim::cli
