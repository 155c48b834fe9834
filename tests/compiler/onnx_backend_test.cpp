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
#include <set>

#include "compiler/frontend/backend_test_deviations.h"
#include "compiler/frontend/onnx_import.h"
#include "compiler/frontend/onnx_proto_io.h"
#include "compiler/frontend/onnx_scan.h"
#include "compiler/frontend/tensor_proto.h"
#include "compiler/graph/interpreter.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/printer.h"

namespace npusim::compiler {
namespace {

const std::filesystem::path kTestData = NPUSIM_ONNX_TESTDATA;

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
        // a == b first: equal infinities are close, though their difference is NaN.
        const bool close = !isFloat(actual.dtype) ? a == b
                           : std::isnan(b)        ? std::isnan(a)
                                                  : a == b || std::abs(a - b) <= 1e-7 + 1e-3 * std::abs(b);
        ASSERT_TRUE(close) << what << ": first mismatch at element " << i << ": got " << a
                           << ", expected " << b;
    }
}

class OnnxBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxBackend, MatchesTheReferenceOutputs) {
    const std::filesystem::path dir = kTestData / GetParam();
    const std::filesystem::path model = dir / "model.onnx";
    const std::optional<BackendTestDeviation> deviation = backendTestDeviation(GetParam());
    if (deviation && !deviation->randomValues) GTEST_SKIP() << deviation->reason;
    if (const std::vector<std::string> features = unsupportedFeatures(model); !features.empty()) {
        std::string list;
        for (const std::string& feature : features) list += (list.empty() ? "" : ", ") + feature;
        GTEST_SKIP() << "uses what npusim does not take: " << list;
    }
    // Inputs that decide shapes are bound to each data set's values: the case is compiled
    // (imported) per data set, as a static-shape compiler does.
    const std::set<std::string> shapeInputs = shapeDecidingInputs(model);
    const std::vector<FedInput> fed = fedInputs(model);
    for (const auto& set : std::filesystem::directory_iterator(dir)) {
        if (!set.is_directory()) continue;
        std::map<std::string, Tensor> inputs, bindings;
        for (size_t i = 0; i < fed.size(); ++i) {
            const std::filesystem::path file = set.path() / ("input_" + std::to_string(i) + ".pb");
            (shapeInputs.contains(fed[i].name) ? bindings : inputs)[fed[i].name] = readTensorProto(file, fed[i].dtype);
        }
        const Graph graph = importOnnx(model, bindings);
        SCOPED_TRACE(printGraph(graph));
        const std::vector<Tensor> outputs = interpretGraph(graph, inputs);
        ASSERT_EQ(outputs.size(), graph.outputs.size());
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string name = "output_" + std::to_string(i) + ".pb";
            const Tensor expected = readTensorProto(set.path() / name, graph.value(graph.outputs[i]).dtype);
            if (deviation) {  // random values: shapes and types only
                EXPECT_EQ(outputs[i].shape, expected.shape) << name;
                EXPECT_EQ(outputs[i].dtype, expected.dtype) << name;
                continue;
            }
            expectClose(outputs[i], expected, set.path().filename().string() + "/" + name);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(NodeTests, OnnxBackend, ::testing::ValuesIn(casesWithKnownOps()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(OnnxImport, NamesUnnamedNodesAndKeepsAttributes) {
    const Graph graph = importOnnx(kTestData / "test_gemm_all_attributes" / "model.onnx");
    EXPECT_EQ(printGraph(graph),
              "graph @test_gemm_all_attributes(%a: fp32[4,3], %b: fp32[5,4], %c: fp32[1,5]) -> "
              "(%y: fp32[3,5]) attributes {opset = 13} {\n"
              "  %y = Gemm(%a, %b, %c) {name = \"gemm_0\", alpha = 0.25, "
              "beta = 0.3499999940395355, transA = 1, transB = 1}\n"
              "  return %y\n"
              "}\n");
}

}  // namespace
}  // namespace npusim::compiler
