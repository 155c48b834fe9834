// Test helpers for the graph IR: typed tensors from literals, one-op graphs, error capture.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
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
    std::memcpy(tensor.bytes.data(), values.data(),
                std::min(tensor.bytes.size(), values.size() * sizeof(T)));
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

/// A graph holding one op named "op" whose present inputs are graph inputs "in0", "in1", ...
/// (nullopt leaves that optional input absent), with its output type derived by the op table.
Graph singleOpGraph(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
                    std::map<std::string, Attribute> attributes = {});

/// Builds singleOpGraph, verifies it and runs it on `inputs`; returns the single output.
Tensor runOp(OpKind kind, const std::vector<std::optional<Tensor>>& inputs,
             std::map<std::string, Attribute> attributes = {});

/// The message of the InputError `action` throws; a test failure and "" if it throws none.
std::string inputErrorOf(const std::function<void()>& action);

/// Expects equal dtype, shape and element values; reports the first mismatch.
void expectTensorEq(const Tensor& actual, const Tensor& expected);

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
