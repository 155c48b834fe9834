// ONNX frontend on models built here with the ONNX protobuf API: initializers, Constant nodes,
// node naming, reordering, and the messages for cycles, symbolic dims and unsupported dtypes.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <variant>

#include "compiler/frontend/onnx_import.h"
#include "compiler/frontend/tensor_proto.h"
#include "compiler/graph/interpreter.h"
#include "compiler/graph/op_table.h"
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
    ModelBuilder& opset(const std::string& domain, int64_t version) {
        onnx::OperatorSetIdProto& opset = *model_.add_opset_import();
        opset.set_domain(domain);
        opset.set_version(version);
        return *this;
    }
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
              "graph @g(%x: fp32[1,2]) -> (%y: fp32[1,2]) attributes {opset = 13} {\n"
              "  %w = constant dense<fp32[2,2]: [1.0, 2.0, 3.0, 4.0]>\n"
              "  %b = constant dense<fp32[2]: [-10.0, 1.0]>\n"
              "  %scale = constant dense<fp32[2,2]: [2.0, 0.0, 0.0, 2.0]>\n"
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
              "graph @g(%x: fp32[2]) -> (%y: fp32[2]) attributes {opset = 13} {\n"
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

TEST_F(OnnxImportModel, SymbolicDimensionsNeedASize) {
    ModelBuilder model;
    model.input("x", onnx::TensorProto::FLOAT, {std::string("seq"), 4})
        .output("y", onnx::TensorProto::FLOAT, {std::string("seq"), 4});
    model.node("Relu", {"x"}, {"y"});
    EXPECT_EQ(importError(model),
              "input 'x' has symbolic dimension 'seq'; give it a size (npusim compile --bucket seq=N,...)");
    const std::filesystem::path path = writeFile("model.onnx", model.bytes());
    const Graph graph = importOnnx(path, {}, {{"seq", 6}});
    EXPECT_EQ(graph.value(graph.inputs[0]).shape, (Shape{6, 4}));
    EXPECT_EQ(graph.value(graph.outputs[0]).shape, (Shape{6, 4}));
    EXPECT_EQ(graph.value(graph.inputs[0]).symbols, (std::vector<std::string>{"seq", ""}));
    EXPECT_EQ(graph.value(graph.outputs[0]).symbols, (std::vector<std::string>{"seq", ""}));
    EXPECT_NE(testing::inputErrorOf([&] { importOnnx(path, {}, {{"batch", 2}}); })
                  .find("has no input with symbolic dimension 'batch'"),
              std::string::npos);
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
    // A vendor's custom op: the ONNX checker takes it, npusim does not know it.
    ModelBuilder model;
    model.opset("com.example", 1);
    model.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
    model.node("Relu", {"x"}, {"h"});
    model.node("Frobnicate", {"h"}, {"y"}, "act").set_domain("com.example");
    EXPECT_EQ(importError(model),
              "op 'act' (com.example.Frobnicate) is not an op npusim runs (npusim compile MODEL --mapping lists the "
              "model's ops and what npusim does with each)");
}

TEST_F(OnnxImportModel, AnUnnamedNodeIsNamedAfterItsOpTypeAndIndex) {
    ModelBuilder model;
    model.opset("com.example", 1);
    model.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
    model.node("Frobnicate", {"x"}, {"y"}).set_domain("com.example");
    const std::string error = importError(model);
    EXPECT_EQ(error.rfind("op 'frobnicate_0' (com.example.Frobnicate) is not an op npusim runs", 0), 0u) << error;
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

/// Adds a Constant node with one list or scalar attribute (value_ints, value_float, ...).
template <class Fill>
void constantNode(ModelBuilder& model, const std::string& output, const std::string& attribute,
                  onnx::AttributeProto::AttributeType type, Fill fill) {
    onnx::AttributeProto& value = *model.node("Constant", {}, {output}).add_attribute();
    value.set_name(attribute);
    value.set_type(type);
    fill(value);
}

TEST_F(OnnxImportModel, FoldsShapeComputationsIntoConstants) {
    ModelBuilder model;
    model.input("x", onnx::TensorProto::FLOAT, {2, 3, 4})
        .output("y", onnx::TensorProto::FLOAT, {2, 12})
        .output("c", onnx::TensorProto::FLOAT, {2})
        .output("h", onnx::TensorProto::FLOAT, {})
        .output("d", onnx::TensorProto::INT64, {});
    // y = Reshape(x, Concat(Gather(Shape(x), [0]), [-1])): the shape is known at compile time.
    model.node("Shape", {"x"}, {"s"});
    constantNode(model, "zero", "value_ints", onnx::AttributeProto::INTS,
                 [](onnx::AttributeProto& a) { a.add_ints(0); });
    model.node("Gather", {"s", "zero"}, {"batch"});
    constantNode(model, "rest", "value_ints", onnx::AttributeProto::INTS,
                 [](onnx::AttributeProto& a) { a.add_ints(-1); });
    model.node("Concat", {"batch", "rest"}, {"target"}).add_attribute()->CopyFrom([] {
        onnx::AttributeProto axis;
        axis.set_name("axis");
        axis.set_type(onnx::AttributeProto::INT);
        axis.set_i(0);
        return axis;
    }());
    model.node("Reshape", {"x", "target"}, {"y"});
    // Graph outputs that are constants: Constant nodes and a folded Gather.
    constantNode(model, "c", "value_floats", onnx::AttributeProto::FLOATS,
                 [](onnx::AttributeProto& a) {
                     a.add_floats(1.5f);
                     a.add_floats(2);
                 });
    constantNode(model, "h", "value_float", onnx::AttributeProto::FLOAT,
                 [](onnx::AttributeProto& a) { a.set_f(0.5f); });
    constantNode(model, "one", "value_int", onnx::AttributeProto::INT,
                 [](onnx::AttributeProto& a) { a.set_i(1); });
    model.node("Gather", {"s", "one"}, {"d"});

    const Graph graph = import(model);
    EXPECT_EQ(printGraph(graph),
              "graph @g(%x: fp32[2,3,4]) -> (%y: fp32[2,12], %c: fp32[2], %h: fp32[], "
              "%d: int64[]) attributes {opset = 13} {\n"
              "  %target = constant dense<int64[2]: [2, -1]>\n"
              "  %c = constant dense<fp32[2]: [1.5, 2.0]>\n"
              "  %h = constant dense<fp32[]: [0.5]>\n"
              "  %d = constant dense<int64[]: [3]>\n"
              "  %y = Reshape(%x, %target) {name = \"reshape_5\"}\n"
              "  return %y, %c, %h, %d\n"
              "}\n");
    std::vector<float> values(24);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
    const std::vector<Tensor> outputs =
        interpretGraph(graph, {{"x", testing::fp32({2, 3, 4}, values)}});
    testing::expectTensorEq(outputs.at(0), testing::fp32({2, 12}, values));
    testing::expectTensorEq(outputs.at(1), testing::fp32({2}, {1.5f, 2}));
    testing::expectTensorEq(outputs.at(2), testing::fp32({}, {0.5f}));
    testing::expectTensorEq(outputs.at(3), testing::int64({}, {3}));
}

TEST_F(OnnxImportModel, ReportsAnErrorFoundWhileFolding) {
    ModelBuilder model;
    model.input("x", onnx::TensorProto::FLOAT, {2, 3}).output("d", onnx::TensorProto::INT64, {});
    model.node("Shape", {"x"}, {"s"});
    constantNode(model, "five", "value_int", onnx::AttributeProto::INT,
                 [](onnx::AttributeProto& a) { a.set_i(5); });
    model.node("Gather", {"s", "five"}, {"d"}, "dim");
    EXPECT_EQ(importError(model), "op 'dim' (Gather): index 5 is out of range for axis 0 of size 2");
}

}  // namespace
}  // namespace npusim::compiler
