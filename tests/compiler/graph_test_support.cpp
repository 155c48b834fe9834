// Test helpers for the graph IR: one-op graphs and error capture.
#include "graph_test_support.h"

#include <unistd.h>

#include <fstream>

#include "compiler/graph/interpreter.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/verifier.h"

namespace npusim::compiler::testing {

Graph singleOpGraph(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                    std::map<std::string, Attribute> attributes) {
    Graph graph;
    graph.name = "single";
    Node node{"op", kind, {}, {}, std::move(attributes)};
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (!inputs[i]) {
            node.inputs.push_back(kNoValue);
            continue;
        }
        const ValueId id = graph.addValue(
            Value{"in" + std::to_string(i), inputs[i]->dtype, inputs[i]->shape, std::nullopt, -1});
        graph.inputs.push_back(id);
        node.inputs.push_back(id);
    }
    const ValueId out = graph.addValue(Value{"out", DType::Fp32, {}, std::nullopt, 0});
    node.outputs.push_back(out);
    graph.outputs.push_back(out);
    graph.nodes.push_back(std::move(node));
    opInfo(kind).inferTypes(graph, graph.nodes.back());
    return graph;
}

Tensor runOp(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
             std::map<std::string, Attribute> attributes) {
    const Graph graph = singleOpGraph(kind, inputs, std::move(attributes));
    verifyGraph(graph);
    std::map<std::string, Tensor> named;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i]) named["in" + std::to_string(i)] = *inputs[i];
    }
    return interpretGraph(graph, named).at(0);
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

}  // namespace npusim::compiler::testing
