// ONNX's own backend test cases (Debian's libonnx-testdata): import the model, run the reference
// interpreter on test_data_set_0 and compare with ONNX's expected output.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "compiler/frontend/onnx_import.h"
#include "compiler/frontend/tensor_proto.h"
#include "compiler/graph/interpreter.h"
#include "compiler/graph/printer.h"

namespace npusim::compiler {
namespace {

const std::filesystem::path kTestData = NPUSIM_ONNX_TESTDATA;

/// Float results may differ from numpy's in the last bits (summation order); integers must not.
void expectClose(const Tensor& actual, const Tensor& expected) {
    ASSERT_EQ(dtypeName(actual.dtype), dtypeName(expected.dtype));
    ASSERT_EQ(shapeString(actual.shape), shapeString(expected.shape));
    for (int64_t i = 0; i < actual.elementCount(); ++i) {
        const double a = actual.valueAt(i), b = expected.valueAt(i);
        const bool close =
            isFloat(actual.dtype) ? std::abs(a - b) <= 1e-5 + 1e-4 * std::abs(b) : a == b;
        ASSERT_TRUE(close) << "first mismatch at element " << i << ": got " << a << ", expected "
                           << b;
    }
}

class OnnxBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxBackend, MatchesTheReferenceOutput) {
    const std::filesystem::path dir = kTestData / GetParam();
    const Graph graph = importOnnx(dir / "model.onnx");
    SCOPED_TRACE(printGraph(graph));
    const std::filesystem::path data = dir / "test_data_set_0";
    std::map<std::string, Tensor> inputs;
    for (size_t i = 0; i < graph.inputs.size(); ++i) {
        inputs[graph.value(graph.inputs[i]).name] =
            readTensorProto(data / ("input_" + std::to_string(i) + ".pb"));
    }
    const std::vector<Tensor> outputs = interpretGraph(graph, inputs);
    ASSERT_EQ(outputs.size(), 1u);
    expectClose(outputs[0], readTensorProto(data / "output_0.pb"));
}

INSTANTIATE_TEST_SUITE_P(
    NodeTests, OnnxBackend,
    ::testing::Values("test_matmul_2d", "test_matmul_3d", "test_matmul_4d",
                      "test_gemm_all_attributes", "test_gemm_alpha", "test_gemm_beta",
                      "test_gemm_default_matrix_bias", "test_gemm_default_no_bias",
                      "test_gemm_default_scalar_bias", "test_gemm_default_single_elem_vector_bias",
                      "test_gemm_default_vector_bias", "test_gemm_default_zero_bias",
                      "test_gemm_transposeA", "test_gemm_transposeB", "test_matmulinteger",
                      "test_relu"),
    [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(OnnxImport, NamesUnnamedNodesAndKeepsAttributes) {
    const Graph graph = importOnnx(kTestData / "test_gemm_all_attributes" / "model.onnx");
    EXPECT_EQ(printGraph(graph),
              "graph @test_gemm_all_attributes(%a: fp32[4,3], %b: fp32[5,4], %c: fp32[1,5]) -> "
              "(%y: fp32[3,5]) {\n"
              "  %y = Gemm(%a, %b, %c) {name = \"gemm_0\", alpha = 0.25, "
              "beta = 0.3499999940395355, transA = 1, transB = 1}\n"
              "  return %y\n"
              "}\n");
}

}  // namespace
}  // namespace npusim::compiler
