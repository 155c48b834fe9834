// ONNX frontend on models built here with the ONNX protobuf API: initializers, Constant nodes,
// node naming, reordering, and the messages for cycles, symbolic dims and unsupported dtypes.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <variant>

#include "compiler/frontend/onnx_import.h"
#include "compiler/frontend/tensor_proto.h"
#include "compiler/graph/interpreter.h"
#include "compiler/graph/printer.h"
#include "graph_test_support.h"

namespace npusim::compiler {
namespace {

using Dim = std::variant<int64_t, std::string>;

/// An opset-13 model under construction.
class ModelBuilder {
  public:
    ModelBuilder() {
        model_.set_ir_version(8);
        model_.add_opset_import()->set_version(13);
        model_.mutable_graph()->set_name("g");
    }

    ModelBuilder& input(const std::string& name, int32_t elementType, std::vector<Dim> dims) {
        describe(model_.mutable_graph()->add_input(), name, elementType, dims);
        return *this;
    }
    ModelBuilder& output(const std::string& name, int32_t elementType, std::vector<Dim> dims) {
        describe(model_.mutable_graph()->add_output(), name, elementType, dims);
        return *this;
    }
    onnx::TensorProto& initializer() { return *model_.mutable_graph()->add_initializer(); }
    onnx::NodeProto& node(const std::string& type, std::vector<std::string> inputs,
                          std::vector<std::string> outputs, const std::string& name = "") {
        onnx::NodeProto& node = *model_.mutable_graph()->add_node();
        node.set_op_type(type);
        node.set_name(name);
        for (const std::string& in : inputs) node.add_input(in);
        for (const std::string& out : outputs) node.add_output(out);
        return node;
    }
    std::string bytes() const { return model_.SerializeAsString(); }

  private:
    static void describe(onnx::ValueInfoProto* info, const std::string& name, int32_t elementType,
                         const std::vector<Dim>& dims) {
        info->set_name(name);
        onnx::TypeProto::Tensor* tensor = info->mutable_type()->mutable_tensor_type();
        tensor->set_elem_type(elementType);
        onnx::TensorShapeProto* shape = tensor->mutable_shape();
        for (const Dim& dim : dims) {
            if (const auto* value = std::get_if<int64_t>(&dim)) {
                shape->add_dim()->set_dim_value(*value);
            } else {
                shape->add_dim()->set_dim_param(std::get<std::string>(dim));
            }
        }
    }

    onnx::ModelProto model_;
};

void fillFloatTensor(onnx::TensorProto& tensor, const std::string& name, std::vector<int64_t> dims,
                     const std::vector<float>& values, bool raw) {
    tensor.set_name(name);
    tensor.set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t dim : dims) tensor.add_dims(dim);
    if (raw) {
        tensor.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()),
                                        values.size() * sizeof(float)));
    } else {
        for (float value : values) tensor.add_float_data(value);
    }
}

class OnnxImportModel : public testing::TempDirTest {
  protected:
    Graph import(const ModelBuilder& builder) {
        return importOnnx(writeFile("model.onnx", builder.bytes()));
    }
    std::string importError(const ModelBuilder& builder) {
        const std::filesystem::path path = writeFile("model.onnx", builder.bytes());
        return testing::inputErrorOf([&] { importOnnx(path); });
    }
};

TEST_F(OnnxImportModel, InitializersAndConstantNodesBecomeConstants) {
    ModelBuilder model;
    model.input("x", onnx::TensorProto::FLOAT, {1, 2})
        .input("b", onnx::TensorProto::FLOAT, {2})  // also an initializer: a constant
        .output("y", onnx::TensorProto::FLOAT, {1, 2});
    fillFloatTensor(model.initializer(), "w", {2, 2}, {1, 2, 3, 4}, /*raw=*/false);
    fillFloatTensor(model.initializer(), "b", {2}, {-10, 1}, /*raw=*/true);
    onnx::AttributeProto& value = *model.node("Constant", {}, {"scale"}).add_attribute();
    value.set_name("value");
    value.set_type(onnx::AttributeProto::TENSOR);
    fillFloatTensor(*value.mutable_t(), "", {2, 2}, {2, 0, 0, 2}, /*raw=*/true);
    model.node("Gemm", {"x", "w", "b"}, {"h"}, "fc");
    model.node("MatMul", {"h", "scale"}, {"s"});
    model.node("Relu", {"s"}, {"y"});

    const Graph graph = import(model);
    EXPECT_EQ(printGraph(graph),
              "graph @g(%x: fp32[1,2]) -> (%y: fp32[1,2]) {\n"
              "  %w = constant fp32[2,2]\n"
              "  %b = constant fp32[2]\n"
              "  %scale = constant fp32[2,2]\n"
              "  %h = Gemm(%x, %w, %b) {name = \"fc\"}\n"
              "  %s = MatMul(%h, %scale) {name = \"matmul_2\"}\n"
              "  %y = Relu(%s) {name = \"relu_3\"}\n"
              "  return %y\n"
              "}\n");
    // [1,1] * [1,2; 3,4] + [-10,1] = [-6,7]; * 2 = [-12,14]; relu -> [0,14]
    const std::vector<Tensor> outputs =
        interpretGraph(graph, {{"x", testing::fp32({1, 2}, {1, 1})}});
    testing::expectTensorEq(outputs.at(0), testing::fp32({1, 2}, {0, 14}));
}

TEST_F(OnnxImportModel, SortsNodesAndMakesNamesUnique) {
    ModelBuilder model;
    model.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
    model.node("Relu", {"m"}, {"y"}, "r");
    model.node("Relu", {"h"}, {"m"}, "r");
    model.node("Relu", {"x"}, {"h"});
    EXPECT_EQ(printGraph(import(model)),
              "graph @g(%x: fp32[2]) -> (%y: fp32[2]) {\n"
              "  %h = Relu(%x) {name = \"relu_2\"}\n"
              "  %m = Relu(%h) {name = \"r_1\"}\n"
              "  %y = Relu(%m) {name = \"r\"}\n"
              "  return %y\n"
              "}\n");
}

TEST_F(OnnxImportModel, RejectsACycle) {
    ModelBuilder model;
    model.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
    model.node("Relu", {"x"}, {"y"});
    model.node("MatMul", {"x", "b"}, {"a"}, "first");
    model.node("MatMul", {"a", "x"}, {"b"}, "second");
    EXPECT_EQ(importError(model), "model '" + (dir_ / "model.onnx").string() +
                                      "': the nodes form a cycle through op 'first' (MatMul)");
}

TEST_F(OnnxImportModel, RejectsASymbolicDimension) {
    ModelBuilder model;
    model.input("x", onnx::TensorProto::FLOAT, {std::string("seq"), 4})
        .output("y", onnx::TensorProto::FLOAT, {std::string("seq"), 4});
    model.node("Relu", {"x"}, {"y"});
    EXPECT_EQ(importError(model),
              "input 'x' has symbolic dimension 'seq'; only static shapes are supported");
}

TEST_F(OnnxImportModel, RejectsAnUnsupportedDType) {
    ModelBuilder model;
    model.input("x", onnx::TensorProto::DOUBLE, {2}).output("y", onnx::TensorProto::DOUBLE, {2});
    model.node("Relu", {"x"}, {"y"});
    EXPECT_EQ(importError(model),
              "input 'x' has element type DOUBLE, which npusim does not support (supported: "
              "FLOAT, FLOAT16, BFLOAT16, INT8, UINT8, INT32, INT64, BOOL)");
}

TEST_F(OnnxImportModel, RejectsAnOpTheGraphIrDoesNotSupport) {
    ModelBuilder model;
    model.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
    model.node("Relu", {"x"}, {"h"});
    model.node("Sigmoid", {"h"}, {"y"}, "act");
    EXPECT_EQ(importError(model),
              "op 'act' (Sigmoid) is not supported (supported: MatMul, Gemm, MatMulInteger, Relu)");
}

TEST_F(OnnxImportModel, ReadsTensorFilesOfEachTypedField) {
    onnx::TensorProto int8Tensor;
    int8Tensor.set_data_type(onnx::TensorProto::INT8);
    int8Tensor.add_dims(3);
    for (int value : {-128, 0, 127}) int8Tensor.add_int32_data(value);
    testing::expectTensorEq(readTensorProto(writeFile("i8.pb", int8Tensor.SerializeAsString())),
                            testing::int8({3}, {-128, 0, 127}));

    onnx::TensorProto halfTensor;
    halfTensor.set_data_type(onnx::TensorProto::FLOAT16);
    halfTensor.add_dims(2);
    halfTensor.add_int32_data(0x3c00);  // 1.0
    halfTensor.add_int32_data(0xc000);  // -2.0
    const Tensor half = readTensorProto(writeFile("f16.pb", halfTensor.SerializeAsString()));
    EXPECT_EQ(half.dtype, DType::Fp16);
    EXPECT_EQ(half.valueAt(0), 1.0);
    EXPECT_EQ(half.valueAt(1), -2.0);

    int8Tensor.set_int32_data(0, 200);
    const std::filesystem::path bad = writeFile("bad.pb", int8Tensor.SerializeAsString());
    EXPECT_EQ(testing::inputErrorOf([&] { readTensorProto(bad); }),
              "tensor file '" + bad.string() + "': value 200 at index 0 does not fit int8");
}

}  // namespace
}  // namespace npusim::compiler
