// Fuzz target: the TensorProto (.pb) reader (ONNX backend test data).
#include "compiler/frontend/tensor_proto.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const npusim::fuzz::InputFile file(data, size, ".pb");
    npusim::fuzz::expectInputErrorsOnly([&] { (void)npusim::compiler::readTensorProto(file.path()); });
    return 0;
}
