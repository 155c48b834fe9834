// Fuzz target: the artifact loader (container, manifest, section checksums).
#include <span>

#include "arch/artifact.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npusim::fuzz::expectInputErrorsOnly([&] {
        (void)npusim::parseArtifact(std::as_bytes(std::span(data, size)), "fuzz.npuart");
    });
    return 0;
}
