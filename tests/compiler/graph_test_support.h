// Test helpers for the graph IR: typed tensors from literals, one-op graphs, error capture.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arch/error.h"
#include "compiler/graph/graph.h"

namespace npusim::compiler::testing {

/// A tensor of `dtype` holding `values` (T must match the element size).
template <class T>
Tensor tensorOf(DType dtype, Shape shape, const std::vector<T>& values) {
    Tensor tensor = Tensor::zeros(dtype, std::move(shape));
    EXPECT_EQ(tensor.bytes.size(), values.size() * sizeof(T)) << "literal has the wrong length";
    const size_t bytes = std::min(tensor.bytes.size(), values.size() * sizeof(T));
    if (bytes) std::memcpy(tensor.bytes.data(), values.data(), bytes);  // an empty vector's data() may be null
    return tensor;
}

inline Tensor fp32(Shape shape, const std::vector<float>& values) {
    return tensorOf(DType::Fp32, std::move(shape), values);
}
inline Tensor int32(Shape shape, const std::vector<int32_t>& values) {
    return tensorOf(DType::Int32, std::move(shape), values);
}
inline Tensor int8(Shape shape, const std::vector<int8_t>& values) {
    return tensorOf(DType::Int8, std::move(shape), values);
}
inline Tensor uint8(Shape shape, const std::vector<uint8_t>& values) {
    return tensorOf(DType::UInt8, std::move(shape), values);
}
inline Tensor int64(Shape shape, const std::vector<int64_t>& values) {
    return tensorOf(DType::Int64, std::move(shape), values);
}
inline Tensor boolean(Shape shape, const std::vector<uint8_t>& values) {
    return tensorOf(DType::Bool, std::move(shape), values);
}

/// Deterministic pseudo-random fp32 values, uniform in [low, high).
Tensor randomFp32(Shape shape, uint32_t seed, float low = -1.0f, float high = 1.0f);
/// Deterministic pseudo-random bytes as a tensor of `dtype` (int8, uint8: every value).
Tensor randomBytes(DType dtype, Shape shape, uint32_t seed);

/// A graph holding one op named "op" whose present inputs are graph inputs "in0", "in1", ...
/// (nullopt leaves that optional input absent), with its output type derived by the op table.
Graph singleOpGraph(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                    std::map<std::string, Attribute> attributes = {});

/// Builds singleOpGraph, verifies it and runs it on `inputs`; returns the single output.
Tensor runOp(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
             std::map<std::string, Attribute> attributes = {});

/// singleOpGraph with `outputCount` outputs ("out", "out1", "out2", ...) in a graph of `opset`.
Graph multiOutputOpGraph(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                         std::map<std::string, Attribute> attributes, size_t outputCount,
                         int64_t opset = Graph{}.opset);

/// Builds multiOutputOpGraph, verifies it and runs it on `inputs`; returns every output.
std::vector<Tensor> runOpOutputs(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                                 std::map<std::string, Attribute> attributes, size_t outputCount,
                                 int64_t opset = Graph{}.opset);

/// multiOutputOpGraph whose inputs listed in `constants` are constants (named "in<i>" too)
/// instead of graph inputs: the operands that decide an output shape (Reshape's shape, Slice's
/// starts, ...) must be constants.
Graph constantOperandGraph(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                           const std::set<size_t>& constants,
                           std::map<std::string, Attribute> attributes = {},
                           size_t outputCount = 1, int64_t opset = Graph{}.opset);

/// Builds constantOperandGraph, verifies it and runs it on the other inputs; returns every
/// output.
std::vector<Tensor> runWithConstants(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                                     const std::set<size_t>& constants,
                                     std::map<std::string, Attribute> attributes = {},
                                     size_t outputCount = 1);

/// The message of the InputError `action` throws; a test failure and "" if it throws none.
std::string inputErrorOf(const std::function<void()>& action);

/// Expects equal dtype, shape and element values; reports the first mismatch.
void expectTensorEq(const Tensor& actual, const Tensor& expected);
/// Expects equal dtype and shape and elements within `tolerance` of the expected ones, relative
/// to their magnitude (absolute below 1); reports the first mismatch.
void expectTensorNear(const Tensor& actual, const Tensor& expected, double tolerance = 1e-6);

/// Builds a graph node by node; each op's result is typed by the op table.
class GraphBuilder {
public:
    explicit GraphBuilder(std::string name, int64_t opset = Graph{}.opset);
    ValueId input(const std::string& name, DType dtype, Shape shape);
    ValueId constant(const std::string& name, Tensor tensor);
    /// Adds an op named `name` whose single result is a value named `name` too.
    ValueId op(OpKind kind, const std::string& name, std::vector<ValueId> inputs,
               std::map<std::string, Attribute> attributes = {});
    /// Adds an op with `outputs` results, named `name`, `name`.1, `name`.2...
    std::vector<ValueId> ops(OpKind kind, const std::string& name, std::vector<ValueId> inputs, size_t outputs,
                             std::map<std::string, Attribute> attributes = {});
    /// The graph, returning `outputs`.
    Graph finish(std::vector<ValueId> outputs);

private:
    Graph graph_;
};

/// A fixture owning a fresh temporary directory for the test's files, removed afterwards.
class TempDirTest : public ::testing::Test {
  protected:
    void SetUp() override;
    void TearDown() override;
    /// Writes `bytes` to a file in the directory and returns its path.
    std::filesystem::path writeFile(const std::string& name, const std::string& bytes) const;

    std::filesystem::path dir_;
};

}  // namespace npusim::compiler::testing
