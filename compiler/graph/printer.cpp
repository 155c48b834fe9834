// Graph IR printer: MLIR-like text, one op per line, attributes sorted by name.
#include "compiler/graph/printer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include "compiler/graph/op_table.h"

namespace npusim::compiler {
namespace {

constexpr int64_t kPrintedConstantElements = 8;

bool isBareName(const std::string& name) {
    if (name.empty()) return false;
    for (char c : name) {
        const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                           (c >= '0' && c <= '9') || c == '_' || c == '.';
        if (!plain) return false;
    }
    return true;
}

/// A double-quoted string with '"', '\' and control characters escaped.
std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
            char escape[5];
            std::snprintf(escape, sizeof escape, "\\%02X", c);
            out += escape;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

/// A value, graph or attribute name: bare when it is plain, quoted otherwise (`%"a:b"`).
std::string nameText(const std::string& name) {
    return isBareName(name) ? name : quoted(name);
}

std::string typeText(const Value& value) {
    return std::string(dtypeName(value.dtype)) + shapeString(value.shape);
}

/// The shortest text that reads back as the same double, always marked as a float ("1.0").
std::string floatText(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    std::string text(buffer, result.ptr);
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    return text;
}

template <class T, class Format>
std::string listText(const std::vector<T>& items, Format format) {
    std::string text = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) text += ", ";
        text += format(items[i]);
    }
    return text + "]";
}

std::string attributeText(const Attribute& attribute) {
    struct Visitor {
        std::string operator()(int64_t value) const { return std::to_string(value); }
        std::string operator()(double value) const { return floatText(value); }
        std::string operator()(const std::string& value) const { return quoted(value); }
        std::string operator()(const std::vector<int64_t>& values) const {
            return listText(values, [](int64_t v) { return std::to_string(v); });
        }
        std::string operator()(const std::vector<double>& values) const {
            return listText(values, floatText);
        }
        /// `dense<int32[1]: [0]>`: the dtype, shape and every element in row-major order.
        std::string operator()(const Tensor& value) const {
            std::vector<std::string> elements;
            for (int64_t i = 0; i < value.elementCount(); ++i) {
                elements.push_back(value.dtype == DType::Int64 ? std::to_string(value.as<int64_t>()[i])
                                   : isFloat(value.dtype)      ? floatText(value.valueAt(i))
                                                          : std::to_string(static_cast<int64_t>(value.valueAt(i))));
            }
            return "dense<" + std::string(dtypeName(value.dtype)) + shapeString(value.shape) +
                   ": " + listText(elements, [](const std::string& e) { return e; }) + ">";
        }
    };
    return std::visit(Visitor{}, attribute);
}

std::string operandText(const Graph& graph, ValueId id) {
    return id == kNoValue ? "none" : '%' + nameText(graph.value(id).name);
}

/// `%out = Op(%a, %b) {name = "n", attr = 1}`; the node name leads, then the attributes in
/// name order (std::map keeps them sorted).
std::string nodeText(const Graph& graph, const Node& node) {
    std::string text;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (i) text += ", ";
        text += operandText(graph, node.outputs[i]);
    }
    text += " = " + std::string(opInfo(node.kind).name) + "(";
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (i) text += ", ";
        text += operandText(graph, node.inputs[i]);
    }
    text += ")";
    std::string entries;
    if (!node.name.empty()) entries = "name = " + quoted(node.name);
    for (const auto& [key, attribute] : node.attributes) {
        if (!entries.empty()) entries += ", ";
        entries += nameText(key) + " = " + attributeText(attribute);
    }
    if (!entries.empty()) text += " {" + entries + "}";
    return text;
}

/// `%x: fp32[1,64], %y: int8[2]` for the graph's inputs or outputs.
std::string typedValues(const Graph& graph, const std::vector<ValueId>& ids) {
    std::string text;
    for (size_t i = 0; i < ids.size(); ++i) {
        if (i) text += ", ";
        const Value& value = graph.value(ids[i]);
        text += '%' + nameText(value.name) + ": " + typeText(value);
    }
    return text;
}

}  // namespace

std::string printGraph(const Graph& graph) {
    std::string text = "graph @" + nameText(graph.name) + "(" + typedValues(graph, graph.inputs) +
                       ") -> (" + typedValues(graph, graph.outputs) + ")";
    // The opset shows only when it is not the graph IR's default.
    if (graph.opset != Graph{}.opset) {
        text += " attributes {opset = " + std::to_string(graph.opset) + "}";
    }
    text += " {\n";
    // The constants some node reads or the graph returns; small ones (scalars, shapes, axes)
    // show their data, larger ones their type only.
    std::set<ValueId> used(graph.outputs.begin(), graph.outputs.end());
    for (const Node& node : graph.nodes) used.insert(node.inputs.begin(), node.inputs.end());
    for (ValueId id = 0; id < graph.values.size(); ++id) {
        const Value& value = graph.values[id];
        if (!value.constant || !used.contains(id)) continue;
        const bool small = value.constant->elementCount() <= kPrintedConstantElements;
        text += "  %" + nameText(value.name) + " = constant " +
                (small ? attributeText(*value.constant) : typeText(value)) + "\n";
    }
    for (const Node& node : graph.nodes) text += "  " + nodeText(graph, node) + "\n";
    text += "  return";
    for (size_t i = 0; i < graph.outputs.size(); ++i) {
        text += (i ? ", " : " ") + operandText(graph, graph.outputs[i]);
    }
    return text + "\n}\n";
}

}  // namespace npusim::compiler
