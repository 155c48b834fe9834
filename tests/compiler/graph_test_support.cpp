// Test helpers for the graph IR: one-op graphs and error capture.
#include "graph_test_support.h"

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <random>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/verifier.h"

namespace npusim::compiler::testing {

Graph singleOpGraph(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                    std::map<std::string, Attribute> attributes) {
    return multiOutputOpGraph(kind, inputs, std::move(attributes), 1);
}

Graph multiOutputOpGraph(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                         std::map<std::string, Attribute> attributes, size_t outputCount,
                         int64_t opset) {
    return constantOperandGraph(kind, inputs, {}, std::move(attributes), outputCount, opset);
}

Graph constantOperandGraph(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                           const std::set<size_t>& constants,
                           std::map<std::string, Attribute> attributes, size_t outputCount,
                           int64_t opset) {
    Graph graph;
    graph.name = "single";
    graph.opset = opset;
    Node node{"op", kind, {}, {}, std::move(attributes)};
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (!inputs[i]) {
            node.inputs.push_back(kNoValue);
            continue;
        }
        const bool constant = constants.contains(i);
        const ValueId id = graph.addValue(
            Value{"in" + std::to_string(i), inputs[i]->dtype, inputs[i]->shape,
                  constant ? std::optional<Tensor>(*inputs[i]) : std::nullopt, -1, {}});
        if (!constant) graph.inputs.push_back(id);
        node.inputs.push_back(id);
    }
    for (size_t i = 0; i < outputCount; ++i) {
        const std::string name = i == 0 ? "out" : "out" + std::to_string(i);
        const ValueId out = graph.addValue(Value{name, DType::Fp32, {}, std::nullopt, 0, {}});
        node.outputs.push_back(out);
        graph.outputs.push_back(out);
    }
    graph.nodes.push_back(std::move(node));
    opInfo(kind).inferTypes(graph, graph.nodes.back());
    return graph;
}

Tensor runOp(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
             std::map<std::string, Attribute> attributes) {
    return runOpOutputs(kind, inputs, std::move(attributes), 1).at(0);
}

std::vector<Tensor> runOpOutputs(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                                 std::map<std::string, Attribute> attributes, size_t outputCount,
                                 int64_t opset) {
    const Graph graph = multiOutputOpGraph(kind, inputs, std::move(attributes), outputCount, opset);
    verifyGraph(graph);
    std::map<std::string, Tensor> named;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i]) named["in" + std::to_string(i)] = *inputs[i];
    }
    return interpretGraph(graph, named);
}

std::vector<Tensor> runWithConstants(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                                     const std::set<size_t>& constants,
                                     std::map<std::string, Attribute> attributes,
                                     size_t outputCount) {
    const Graph graph =
        constantOperandGraph(kind, inputs, constants, std::move(attributes), outputCount);
    verifyGraph(graph);
    std::map<std::string, Tensor> named;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i] && !constants.contains(i)) named["in" + std::to_string(i)] = *inputs[i];
    }
    return interpretGraph(graph, named);
}

std::string inputErrorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an InputError";
    return "";
}

void expectTensorEq(const Tensor& actual, const Tensor& expected) {
    EXPECT_EQ(dtypeName(actual.dtype), dtypeName(expected.dtype));
    EXPECT_EQ(shapeString(actual.shape), shapeString(expected.shape));
    ASSERT_EQ(actual.elementCount(), expected.elementCount());
    for (int64_t i = 0; i < actual.elementCount(); ++i) {
        EXPECT_EQ(actual.valueAt(i), expected.valueAt(i)) << "first mismatch at element " << i;
        if (actual.valueAt(i) != expected.valueAt(i)) return;
    }
}

void expectTensorNear(const Tensor& actual, const Tensor& expected, double tolerance) {
    EXPECT_EQ(dtypeName(actual.dtype), dtypeName(expected.dtype));
    EXPECT_EQ(shapeString(actual.shape), shapeString(expected.shape));
    ASSERT_EQ(actual.elementCount(), expected.elementCount());
    for (int64_t i = 0; i < actual.elementCount(); ++i) {
        const double a = actual.valueAt(i), e = expected.valueAt(i);
        const bool near = a == e || (std::isnan(a) && std::isnan(e)) ||
                          std::abs(a - e) <= tolerance * std::max(1.0, std::abs(e));
        EXPECT_TRUE(near) << "first mismatch at element " << i << ": got " << a << ", expected "
                          << e;
        if (!near) return;
    }
}

void TempDirTest::SetUp() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("npusim_" + std::string(test->test_suite_name()) + "_" + test->name() + "_" +
            std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
}

void TempDirTest::TearDown() {
    std::filesystem::remove_all(dir_);
}

std::filesystem::path TempDirTest::writeFile(const std::string& name,
                                             const std::string& bytes) const {
    const std::filesystem::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

Tensor randomFp32(Shape shape, uint32_t seed, float low, float high) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(low, high);
    Tensor tensor = Tensor::zeros(DType::Fp32, std::move(shape));
    for (float& v : tensor.as<float>()) v = uniform(rng);
    return tensor;
}

Tensor randomBytes(DType dtype, Shape shape, uint32_t seed) {
    std::mt19937 rng(seed);
    Tensor tensor = Tensor::zeros(dtype, std::move(shape));
    for (std::byte& b : tensor.bytes) b = static_cast<std::byte>(rng() % 256);
    return tensor;
}

GraphBuilder::GraphBuilder(std::string name, int64_t opset) {
    graph_.name = std::move(name);
    graph_.opset = opset;
}

ValueId GraphBuilder::input(const std::string& name, DType dtype, Shape shape) {
    const ValueId id = graph_.addValue(Value{name, dtype, std::move(shape), std::nullopt, -1, {}});
    graph_.inputs.push_back(id);
    return id;
}

ValueId GraphBuilder::constant(const std::string& name, Tensor tensor) {
    const DType dtype = tensor.dtype;
    const Shape shape = tensor.shape;
    return graph_.addValue(Value{name, dtype, shape, std::move(tensor), -1, {}});
}

ValueId GraphBuilder::op(OpKind kind, const std::string& name, std::vector<ValueId> inputs,
                         std::map<std::string, Attribute> attributes) {
    const ValueId out = graph_.addValue(Value{name, DType::Fp32, {}, std::nullopt, static_cast<int>(graph_.nodes.size()), {}});
    graph_.nodes.push_back(Node{name, kind, std::move(inputs), {out}, std::move(attributes)});
    opInfo(kind).inferTypes(graph_, graph_.nodes.back());
    return out;
}

std::vector<ValueId> GraphBuilder::ops(OpKind kind, const std::string& name, std::vector<ValueId> inputs, size_t outputs,
                                       std::map<std::string, Attribute> attributes) {
    std::vector<ValueId> results;
    for (size_t i = 0; i < outputs; ++i) {
        const std::string valueName = i == 0 ? name : name + "." + std::to_string(i);
        results.push_back(graph_.addValue(Value{valueName, DType::Fp32, {}, std::nullopt, static_cast<int>(graph_.nodes.size()), {}}));
    }
    graph_.nodes.push_back(Node{name, kind, std::move(inputs), results, std::move(attributes)});
    opInfo(kind).inferTypes(graph_, graph_.nodes.back());
    return results;
}

Graph GraphBuilder::finish(std::vector<ValueId> outputs) {
    graph_.outputs = std::move(outputs);
    return graph_;
}

}  // namespace npusim::compiler::testing
