// ONNX frontend failures: each is an InputError that names the file, node or value at fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "compiler/frontend/onnx_import.h"
#include "compiler/frontend/tensor_proto.h"
#include "compiler/graph/op_table.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

const std::filesystem::path kTestData = NPUSIM_ONNX_TESTDATA;

class OnnxImportErrors : public testing::TempDirTest {};

std::string readFile(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

TEST_F(OnnxImportErrors, MissingFile) {
    const std::filesystem::path path = dir_ / "absent.onnx";
    EXPECT_EQ(testing::inputErrorOf([&] { importOnnx(path); }),
              "cannot read model '" + path.string() + "': no such file");
    EXPECT_EQ(testing::inputErrorOf([&] { readTensorProto(dir_ / "absent.pb"); }),
              "cannot read tensor file '" + (dir_ / "absent.pb").string() + "': no such file");
}

TEST_F(OnnxImportErrors, TruncatedModel) {
    const std::string model = readFile(kTestData / "test_gemm_all_attributes" / "model.onnx");
    ASSERT_GT(model.size(), 20u);
    const std::filesystem::path path =
        writeFile("truncated.onnx", model.substr(0, model.size() / 2));
    EXPECT_EQ(testing::inputErrorOf([&] { importOnnx(path); }),
              "model '" + path.string() + "' is not a valid ONNX file (protobuf parse failed)");
}

TEST_F(OnnxImportErrors, ModelTheCheckerRejects) {
    const std::filesystem::path path = writeFile("empty.onnx", "");
    const std::string message = testing::inputErrorOf([&] { importOnnx(path); });
    EXPECT_EQ(message.rfind("model '" + path.string() + "' rejected by the ONNX checker: ", 0), 0u)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace
}  // namespace npusim::compiler
