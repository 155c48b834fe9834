// ONNX's own backend test cases (Debian's libonnx-testdata): every case whose ops the graph IR
// knows is imported and run on the reference interpreter, and each of its test data sets is
// compared with ONNX's expected outputs, with ONNX's tolerances. Adding an op to the op table
// enrols its cases here.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "compiler/frontend/onnx_import.h"
#include "compiler/frontend/tensor_proto.h"
#include "compiler/graph/interpreter.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/printer.h"

namespace npusim::compiler {
namespace {

const std::filesystem::path kTestData = NPUSIM_ONNX_TESTDATA;

/// Cases whose ops are known but which the graph IR deliberately does not take, with the reason.
const std::map<std::string, std::string> kKnownLimitations = {};

/// True when every node of the case's model is an op the graph IR knows.
bool opsAreKnown(const std::filesystem::path& model) {
    std::ifstream in(model, std::ios::binary);
    onnx::ModelProto proto;
    if (!proto.ParseFromIstream(&in)) return false;
    return std::all_of(proto.graph().node().begin(), proto.graph().node().end(),
                       [](const onnx::NodeProto& node) {
                           return (node.domain().empty() || node.domain() == "ai.onnx") &&
                                  (node.op_type() == "Constant" || findOpKind(node.op_type()));
                       });
}

std::vector<std::string> casesWithKnownOps() {
    std::vector<std::string> cases;
    for (const auto& entry : std::filesystem::directory_iterator(kTestData)) {
        if (opsAreKnown(entry.path() / "model.onnx")) cases.push_back(entry.path().filename());
    }
    std::sort(cases.begin(), cases.end());
    return cases;
}

/// ONNX's backend tolerances: |a - b| <= atol + rtol * |b| for floats; integers exact.
void expectClose(const Tensor& actual, const Tensor& expected, const std::string& what) {
    ASSERT_EQ(dtypeName(actual.dtype), dtypeName(expected.dtype)) << what;
    ASSERT_EQ(shapeString(actual.shape), shapeString(expected.shape)) << what;
    for (int64_t i = 0; i < actual.elementCount(); ++i) {
        const double a = actual.valueAt(i), b = expected.valueAt(i);
        const bool close = !isFloat(actual.dtype) ? a == b
                           : std::isnan(b)        ? std::isnan(a)
                                                  : std::abs(a - b) <= 1e-7 + 1e-3 * std::abs(b);
        ASSERT_TRUE(close) << what << ": first mismatch at element " << i << ": got " << a
                           << ", expected " << b;
    }
}

class OnnxBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxBackend, MatchesTheReferenceOutputs) {
    if (const auto it = kKnownLimitations.find(GetParam()); it != kKnownLimitations.end()) {
        GTEST_SKIP() << it->second;
    }
    const std::filesystem::path dir = kTestData / GetParam();
    const Graph graph = importOnnx(dir / "model.onnx");
    SCOPED_TRACE(printGraph(graph));
    for (const auto& set : std::filesystem::directory_iterator(dir)) {
        if (!set.is_directory()) continue;
        std::map<std::string, Tensor> inputs;
        for (size_t i = 0; i < graph.inputs.size(); ++i) {
            inputs[graph.value(graph.inputs[i]).name] =
                readTensorProto(set.path() / ("input_" + std::to_string(i) + ".pb"));
        }
        const std::vector<Tensor> outputs = interpretGraph(graph, inputs);
        ASSERT_EQ(outputs.size(), graph.outputs.size());
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string name = "output_" + std::to_string(i) + ".pb";
            expectClose(outputs[i], readTensorProto(set.path() / name),
                        set.path().filename().string() + "/" + name);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(NodeTests, OnnxBackend, ::testing::ValuesIn(casesWithKnownOps()),
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
