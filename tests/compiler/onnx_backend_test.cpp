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

#include "compiler/frontend/onnx_import.h"
#include "compiler/frontend/onnx_proto_io.h"
#include "compiler/frontend/onnx_scan.h"
#include "compiler/graph/interpreter.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/printer.h"

namespace npusim::compiler {
namespace {

const std::filesystem::path kTestData = NPUSIM_ONNX_TESTDATA;

constexpr const char* kNoDouble = "DOUBLE tensors: npusim has no fp64 dtype";
constexpr const char* kTrainingDropout =
    "training-mode Dropout (random masks): npusim runs Dropout in inference mode";
constexpr const char* kNoString = "STRING tensors: npusim has no string dtype";
constexpr const char* kMisdeclaredLike =
    "the data feeds input 'like' as fp32[1], but the model declares fp32[3,4]; the interpreter "
    "holds inputs to their declared types";
constexpr const char* kTruncatedBfloat16 =
    "the expected bfloat16 outputs truncate fp32; npusim rounds to nearest even, like its tensor "
    "unit, and the two differ by one bfloat16 ulp, beyond ONNX's tolerance";
constexpr const char* kTrainingBatchNorm =
    "training-mode BatchNormalization (batch statistics, running-statistic outputs): npusim "
    "runs it in inference mode";

/// Cases whose ops are known but which the graph IR deliberately does not take, with the reason.
const std::map<std::string, std::string> kKnownLimitations = {
    // Elementwise, activations, reductions and normalisation.
    {"test_max_float64", kNoDouble},
    {"test_max_int16", "INT16 tensors: npusim has no int16 dtype"},
    {"test_max_uint16", "UINT16 tensors: npusim has no uint16 dtype"},
    {"test_max_uint32", "UINT32 tensors: npusim has no uint32 dtype"},
    {"test_max_uint64", "UINT64 tensors: npusim has no uint64 dtype"},
    {"test_min_float64", kNoDouble},
    {"test_min_int16", "INT16 tensors: npusim has no int16 dtype"},
    {"test_min_uint16", "UINT16 tensors: npusim has no uint16 dtype"},
    {"test_min_uint32", "UINT32 tensors: npusim has no uint32 dtype"},
    {"test_min_uint64", "UINT64 tensors: npusim has no uint64 dtype"},
    {"test_pow_types_float32_uint32", "UINT32 tensors: npusim has no uint32 dtype"},
    {"test_pow_types_float32_uint64", "UINT64 tensors: npusim has no uint64 dtype"},
    {"test_reduce_log_sum_exp_default_axes_keepdims_example", kNoDouble},
    {"test_reduce_log_sum_exp_default_axes_keepdims_random", kNoDouble},
    {"test_reduce_log_sum_exp_do_not_keepdims_example", kNoDouble},
    {"test_reduce_log_sum_exp_do_not_keepdims_random", kNoDouble},
    {"test_reduce_log_sum_exp_keepdims_example", kNoDouble},
    {"test_reduce_log_sum_exp_keepdims_random", kNoDouble},
    {"test_reduce_log_sum_exp_negative_axes_keepdims_example", kNoDouble},
    {"test_reduce_log_sum_exp_negative_axes_keepdims_random", kNoDouble},
    {"test_identity_opt", "an optional-typed value: the graph IR holds tensors only"},
    {"test_identity_sequence", "a sequence-typed value: the graph IR holds tensors only"},
    {"test_training_dropout", kTrainingDropout},
    {"test_training_dropout_default", kTrainingDropout},
    {"test_training_dropout_default_mask", kTrainingDropout},
    {"test_training_dropout_mask", kTrainingDropout},
    {"test_training_dropout_zero_ratio", kTrainingDropout},
    {"test_training_dropout_zero_ratio_mask", kTrainingDropout},
    {"test_batchnorm_epsilon_training_mode", kTrainingBatchNorm},
    {"test_batchnorm_example_training_mode", kTrainingBatchNorm},
    // Shape and data movement.
    {"test_cast_DOUBLE_to_FLOAT", kNoDouble},
    {"test_cast_DOUBLE_to_FLOAT16", kNoDouble},
    {"test_cast_FLOAT16_to_DOUBLE", kNoDouble},
    {"test_cast_FLOAT_to_DOUBLE", kNoDouble},
    {"test_castlike_DOUBLE_to_FLOAT", kNoDouble},
    {"test_castlike_DOUBLE_to_FLOAT16", kNoDouble},
    {"test_castlike_DOUBLE_to_FLOAT16_expanded", kNoDouble},
    {"test_castlike_DOUBLE_to_FLOAT_expanded", kNoDouble},
    {"test_castlike_FLOAT16_to_DOUBLE", kNoDouble},
    {"test_castlike_FLOAT16_to_DOUBLE_expanded", kNoDouble},
    {"test_castlike_FLOAT_to_DOUBLE", kNoDouble},
    {"test_castlike_FLOAT_to_DOUBLE_expanded", kNoDouble},
    {"test_cumsum_1d", kNoDouble},
    {"test_cumsum_1d_exclusive", kNoDouble},
    {"test_cumsum_1d_reverse", kNoDouble},
    {"test_cumsum_1d_reverse_exclusive", kNoDouble},
    {"test_cumsum_2d_axis_0", kNoDouble},
    {"test_cumsum_2d_axis_1", kNoDouble},
    {"test_cumsum_2d_negative_axis", kNoDouble},
    {"test_cast_FLOAT_to_STRING", kNoString},
    {"test_cast_STRING_to_FLOAT", kNoString},
    {"test_castlike_FLOAT_to_STRING", kNoString},
    {"test_castlike_FLOAT_to_STRING_expanded", kNoString},
    {"test_castlike_STRING_to_FLOAT", kNoString},
    {"test_castlike_STRING_to_FLOAT_expanded", kNoString},
    {"test_cast_FLOAT_to_BFLOAT16", kTruncatedBfloat16},
    {"test_castlike_FLOAT_to_BFLOAT16", kTruncatedBfloat16},
    {"test_castlike_FLOAT_to_BFLOAT16_expanded", kTruncatedBfloat16},
    {"test_castlike_BFLOAT16_to_FLOAT", kMisdeclaredLike},
    {"test_castlike_BFLOAT16_to_FLOAT_expanded", kMisdeclaredLike},
};

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

onnx::ModelProto readModel(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    onnx::ModelProto proto;
    EXPECT_TRUE(proto.ParseFromIstream(&in)) << path;
    return proto;
}

bool isInitializer(const onnx::GraphProto& graph, const std::string& name) {
    return std::any_of(graph.initializer().begin(), graph.initializer().end(),
                       [&](const onnx::TensorProto& tensor) { return tensor.name() == name; });
}

/// A test data file of a model input or output declared as `declared`. ONNX 1.12 stored bfloat16
/// data as UINT16 bit patterns (numpy has no bfloat16): those are read as the bfloat16 they are.
Tensor readTestTensor(const std::filesystem::path& file, const onnx::TypeProto& declared) {
    onnx::TensorProto proto;
    frontend::readProtoFile(file, proto, "tensor file", "a valid onnx.TensorProto");
    if (proto.data_type() == onnx::TensorProto::UINT16 &&
        declared.tensor_type().elem_type() == onnx::TensorProto::BFLOAT16) {
        proto.set_data_type(onnx::TensorProto::BFLOAT16);
    }
    return frontend::tensorFromProto(proto, "tensor file '" + file.string() + "'");
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
    if (const auto it = kKnownLimitations.find(GetParam()); it != kKnownLimitations.end()) {
        GTEST_SKIP() << it->second;
    }
    const std::filesystem::path dir = kTestData / GetParam();
    const onnx::ModelProto model = readModel(dir / "model.onnx");
    // Inputs that decide shapes are bound to each data set's values: the case is compiled
    // (imported) per data set, as a static-shape compiler does.
    const std::set<std::string> shapeInputs = shapeDecidingInputs(dir / "model.onnx");
    for (const auto& set : std::filesystem::directory_iterator(dir)) {
        if (!set.is_directory()) continue;
        // input_<i>.pb holds the i-th graph input that is not an initializer.
        std::map<std::string, Tensor> inputs, bindings;
        int index = 0;
        for (const onnx::ValueInfoProto& input : model.graph().input()) {
            if (isInitializer(model.graph(), input.name())) continue;
            const std::filesystem::path file = set.path() / ("input_" + std::to_string(index++) + ".pb");
            (shapeInputs.contains(input.name()) ? bindings : inputs)[input.name()] = readTestTensor(file, input.type());
        }
        const Graph graph = importOnnx(dir / "model.onnx", bindings);
        SCOPED_TRACE(printGraph(graph));
        const std::vector<Tensor> outputs = interpretGraph(graph, inputs);
        ASSERT_EQ(outputs.size(), graph.outputs.size());
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string name = "output_" + std::to_string(i) + ".pb";
            expectClose(outputs[i], readTestTensor(set.path() / name, model.graph().output(i).type()),
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
              "(%y: fp32[3,5]) attributes {opset = 13} {\n"
              "  %y = Gemm(%a, %b, %c) {name = \"gemm_0\", alpha = 0.25, "
              "beta = 0.3499999940395355, transA = 1, transB = 1}\n"
              "  return %y\n"
              "}\n");
}

}  // namespace
}  // namespace npusim::compiler
