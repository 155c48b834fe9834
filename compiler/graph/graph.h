// Graph IR: the model as ops on typed values, close to ONNX but checked and self-contained.
// Ops are described by one table (op_table.h); passes and lowering read and rewrite a Graph.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "arch/dtype.h"
#include "arch/tensor.h"

namespace npusim::compiler {

using ValueId = uint32_t;
/// An absent optional input (ONNX's empty input name).
inline constexpr ValueId kNoValue = UINT32_MAX;

/// The op types the graph IR knows, in the order of the op table (ops.def), which gives each its
/// name, arity, type and shape function, reference semantics and traits.
enum class OpKind : uint16_t {
#define NPUSIM_OP(kind, ...) kind,
#include "compiler/graph/ops.def"
};

/// A typed SSA value: a graph input, a constant (initializer) or an op result.
struct Value {
    std::string name;
    DType dtype = DType::Fp32;
    Shape shape;
    std::optional<Tensor> constant;  ///< set for initializers and folded constants
    int producer = -1;               ///< index of the producing node, -1 for inputs/constants
    /// Graph inputs and outputs: per dim, the ONNX symbol (dim_param) it was declared with,
    /// "" for a fixed dim; empty when every dim is fixed.
    std::vector<std::string> symbols;
};

/// An ONNX attribute; a tensor attribute holds a (small) value such as ConstantOfShape's fill.
using Attribute =
    std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>, Tensor>;

struct Node {
    std::string name;  ///< the ONNX node name (made unique and non-empty by the frontend)
    OpKind kind = OpKind::MatMul;
    std::vector<ValueId> inputs;  ///< kNoValue for an absent optional input
    std::vector<ValueId> outputs;
    std::map<std::string, Attribute> attributes;

    /// Attribute lookup with a default.
    int64_t intAttr(const std::string& key, int64_t fallback) const;
    double floatAttr(const std::string& key, double fallback) const;
};

struct Graph {
    std::string name;
    /// The ONNX opset of the default domain the model was written against, for ops whose
    /// definition changed across opsets (Softmax's 2-D form before 13, Dropout's mask before 10).
    int64_t opset = 17;
    std::vector<Value> values;
    std::vector<Node> nodes;  ///< in a topological order
    std::vector<ValueId> inputs, outputs;

    ValueId addValue(Value value) {
        values.push_back(std::move(value));
        return static_cast<ValueId>(values.size() - 1);
    }
    const Value& value(ValueId id) const { return values.at(id); }
    Value& value(ValueId id) { return values.at(id); }
    /// How many node inputs name each value (values no node reads are absent).
    std::map<ValueId, int> readerCounts() const;
};

}  // namespace npusim::compiler
