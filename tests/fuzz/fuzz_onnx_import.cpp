// Fuzz target: the ONNX importer (checker, shape inference, conversion to graph IR).
#include "compiler/frontend/onnx_import.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const npusim::fuzz::InputFile file(data, size, ".onnx");
    npusim::fuzz::expectInputErrorsOnly([&] { (void)npusim::compiler::importOnnx(file.path()); });
    return 0;
}
