// npusim disasm ARTIFACT: the command streams as assembler text, one descriptor per line, the
// bodies and steps of loops indented under them (--expand: the commands the loops generate
// instead); with several segments, each under a comment line naming it (CPU segments by
// their op).
#include <cstdio>
#include <iostream>
#include <memory>

#include "arch/artifact.h"
#include "arch/error.h"
#include "arch/isa.h"
#include "arch/isa_loops.h"
#include "cli/commands.h"

namespace npusim::cli {

void addDisasmCommand(CLI::App& app) {
    CLI::App* disasm = app.add_subcommand("disasm", "print an artifact's command stream");
    auto path = std::make_shared<std::string>();
    auto expand = std::make_shared<bool>(false);
    disasm->add_option("artifact", *path, "artifact file (.npuart)")->required();
    disasm->add_flag("--expand", *expand, "print the commands the loops generate, as the command processor dispatches them");
    disasm->callback([path, expand] {
        const Artifact artifact = readArtifact(*path);
        const std::vector<SegmentRecord>& segments = artifact.manifest.segments;
        const bool labelled = segments.size() > 1;
        bool streams = false;
        for (size_t s = 0; s < segments.size(); ++s) {
            if (segments[s].cpu) {
                std::cout << "# segment " << s << ": CPU kernel @" << segments[s].kernel << " (op " << segments[s].opId << ")\n";
                continue;
            }
            const auto section = artifact.sections.find(segments[s].section);
            if (section == artifact.sections.end()) continue;  // a bucketed artifact names its streams by bucket
            streams = true;
            if (labelled) std::cout << "# segment " << s << ": NPU job, section '" << segments[s].section << "'\n";
            std::vector<isa::Command> commands = isa::decodeStream(section->second);
            if (*expand) commands = isa::expandLoops(commands);
            std::vector<size_t> loopEnds;  // one past the last descriptor of each enclosing loop
            char index[32];
            for (size_t i = 0; i < commands.size(); ++i) {
                while (!loopEnds.empty() && loopEnds.back() <= i) loopEnds.pop_back();
                std::snprintf(index, sizeof index, "%6zu  ", i);
                std::cout << index << std::string(2 * loopEnds.size(), ' ') << isa::disassemble(commands[i]) << "\n";
                if (commands[i].opcode == isa::Opcode::Loop) loopEnds.push_back(i + isa::loopExtent(commands[i]));
            }
        }
        if (!streams) throw InputError("artifact '" + *path + "' has no command stream");
    });
}

}  // namespace npusim::cli
