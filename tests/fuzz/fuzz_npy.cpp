// Fuzz target: the .npy reader (model inputs and expected outputs).
#include "cli/npy.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const npusim::fuzz::InputFile file(data, size, ".npy");
    npusim::fuzz::expectInputErrorsOnly([&] { (void)npusim::cli::readNpy(file.path(), npusim::DType::Fp32); });
    return 0;
}
