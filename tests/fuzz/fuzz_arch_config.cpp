// Fuzz target: the architecture config parser and validator (arch config JSON files).
#include <string_view>

#include "arch/arch_config.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npusim::fuzz::expectInputErrorsOnly([&] {
        const std::string_view text(reinterpret_cast<const char*>(data), size);
        (void)npusim::validateArchConfig(npusim::parseArchConfigFile(text, "fuzz"));
    });
    return 0;
}
