// Shape helpers shared by the op implementations.
#include "compiler/graph/op_support.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "compiler/graph/onnx_element_types.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {

Shape broadcastShapes(const Node& node, const Shape& a, const Shape& b) {
    const size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t aDim = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t bDim = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (aDim != bDim && aDim != 1 && bDim != 1) {
            opError(node, "shapes " + shapeString(a) + " and " + shapeString(b) +
                              " do not broadcast");
        }
        out[i] = aDim == 1 ? bDim : aDim;
    }
    return out;
}

std::vector<int64_t> broadcastStrides(const Shape& dims, size_t rank) {
    std::vector<int64_t> strides(rank, 0);
    int64_t stride = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        const size_t dim = dims.size() - 1 - i;
        strides[rank - 1 - i] = dims[dim] == 1 ? 0 : stride;
        stride *= dims[dim];
    }
    return strides;
}

std::vector<int64_t> rowMajorStrides(const Shape& shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    return strides;
}

std::vector<int64_t> broadcastSourceIndices(const Shape& source, const Shape& output) {
    const std::vector<int64_t> strides = broadcastStrides(source, output.size());
    std::vector<int64_t> indices(static_cast<size_t>(elementCount(output)));
    std::vector<int64_t> position(output.size(), 0);
    int64_t sourceIndex = 0;
    for (int64_t& index : indices) {
        index = sourceIndex;
        // Step the output position like an odometer, keeping sourceIndex in step with it.
        for (size_t dim = output.size(); dim-- > 0;) {
            sourceIndex += strides[dim];
            if (++position[dim] < output[dim]) break;
            sourceIndex -= strides[dim] * output[dim];
            position[dim] = 0;
        }
    }
    return indices;
}

const Tensor& constantInput(const Graph& graph, const Node& node, size_t index, const char* what) {
    const Value& value = graph.value(node.inputs.at(index));
    if (!value.constant) {
        opError(node, std::string(what) + " ('" + value.name +
                          "') must be a constant (an initializer or a Constant node), since it "
                          "decides the output shape");
    }
    return *value.constant;
}

std::vector<int64_t> constantInts(const Graph& graph, const Node& node, size_t index,
                                  const char* what) {
    const Tensor& data = constantInput(graph, node, index, what);
    if (data.dtype != DType::Int64 && data.dtype != DType::Int32) {
        opError(node, std::string(what) + " must be int64 or int32, got " +
                          std::string(dtypeName(data.dtype)));
    }
    if (data.dtype == DType::Int32) {
        const std::span<const int32_t> narrow = data.as<int32_t>();
        return {narrow.begin(), narrow.end()};
    }
    const std::span<const int64_t> wide = data.as<int64_t>();
    return {wide.begin(), wide.end()};
}

std::optional<std::vector<int64_t>> intsFromAttributeOrInput(const Graph& graph, const Node& node,
                                                             const std::string& key, size_t index) {
    if (node.attributes.contains(key)) return intListAttr(node, key);
    if (index >= node.inputs.size() || node.inputs[index] == kNoValue) return std::nullopt;
    return constantInts(graph, node, index, key.c_str());
}

std::optional<std::vector<int64_t>> intsFromAttributeOrInput(const Node& node,
                                                             std::span<const Tensor* const> inputs,
                                                             const std::string& key, size_t index) {
    if (node.attributes.contains(key)) return intListAttr(node, key);
    if (index >= inputs.size() || inputs[index] == nullptr) return std::nullopt;
    const Tensor& data = *inputs[index];
    if (data.dtype != DType::Int64 && data.dtype != DType::Int32) {
        opError(node, key + " must be int64 or int32, got " + std::string(dtypeName(data.dtype)));
    }
    std::vector<int64_t> values(static_cast<size_t>(data.elementCount()));
    for (size_t i = 0; i < values.size(); ++i) {
        values[i] = static_cast<int64_t>(data.dtype == DType::Int32 ? data.as<int32_t>()[i]
                                                                    : data.as<int64_t>()[i]);
    }
    return values;
}

Tensor takeElements(const Tensor& source, Shape shape, std::span<const int64_t> sourceIndices) {
    Tensor out = Tensor::zeros(source.dtype, std::move(shape));
    const size_t size = dtypeSize(source.dtype);
    for (size_t i = 0; i < sourceIndices.size(); ++i) {
        std::memcpy(out.bytes.data() + i * size,
                    source.bytes.data() + static_cast<size_t>(sourceIndices[i]) * size, size);
    }
    return out;
}

int64_t normalizeAxis(const Node& node, int64_t axis, int64_t rank, const char* what) {
    if (axis < -rank || axis >= std::max<int64_t>(rank, 1)) {
        opError(node, std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                          std::to_string(rank));
    }
    return axis < 0 ? axis + rank : axis;
}

int64_t gatherAxis(const Node& node, const Shape& data) {
    if (data.empty()) opError(node, "data must have rank >= 1, got a scalar");
    return normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(data.size()));
}

int64_t checkedIndex(const Node& node, int64_t index, int64_t size, int64_t axis) {
    if (index < -size || index >= size) {
        opError(node, "index " + std::to_string(index) + " is out of range for axis " + std::to_string(axis) +
                          " of size " + std::to_string(size));
    }
    return index < 0 ? index + size : index;
}

std::vector<int64_t> intListAttr(const Node& node, const std::string& key,
                                 std::vector<int64_t> fallback) {
    const auto it = node.attributes.find(key);
    if (it == node.attributes.end()) return fallback;
    if (const auto* list = std::get_if<std::vector<int64_t>>(&it->second)) return *list;
    opError(node, "attribute '" + key + "' must be a list of ints");
}

std::string stringAttr(const Node& node, const std::string& key, const std::string& fallback) {
    const auto it = node.attributes.find(key);
    if (it == node.attributes.end()) return fallback;
    if (const auto* text = std::get_if<std::string>(&it->second)) return *text;
    opError(node, "attribute '" + key + "' must be a string");
}

DType floatProductType(const Node& node, DType operands) {
    if (!node.attributes.contains("output_type")) return operands;
    const std::optional<DType> type = dtypeOfOnnxElementType(node.intAttr("output_type", 0));
    if ((operands != DType::Fp16 && operands != DType::Bf16) || !type || (*type != DType::Fp32 && *type != operands)) {
        opError(node, "output_type must be fp32 or the operands' type, and only for fp16 or bf16 operands");
    }
    return *type;
}

}  // namespace npusim::compiler::ops
