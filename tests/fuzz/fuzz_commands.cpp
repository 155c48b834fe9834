// Fuzz target: the command decoder and the firmware's validator, command by command, as the
// firmware meets a command buffer: a command that decodes is validated against the edge
// preset and a 1 MiB window.
#include <span>

#include "arch/arch_config.h"
#include "arch/isa.h"
#include "firmware/command_validator.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const npusim::ArchConfig config = npusim::loadArchConfig("edge", {});
    const auto bytes = std::as_bytes(std::span(data, size));
    for (size_t offset = 0; offset + npusim::isa::kCommandBytes <= bytes.size(); offset += npusim::isa::kCommandBytes) {
        npusim::fuzz::expectInputErrorsOnly([&] {
            const npusim::isa::Command command =
                npusim::isa::decode(bytes.subspan(offset).first<npusim::isa::kCommandBytes>());
            (void)npusim::firmware::validateCommand(command, config, 1 << 20);
            (void)npusim::isa::disassemble(command);
        });
    }
    return 0;
}
