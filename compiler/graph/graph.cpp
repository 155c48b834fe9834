// Graph IR node helpers: typed attribute lookup.
#include "compiler/graph/graph.h"

#include "compiler/graph/op_table.h"

namespace npusim::compiler {
namespace {

/// How an attribute's type reads in a message.
const char* attributeTypeName(const Attribute& attribute) {
    constexpr const char* kNames[] = {"an int", "a float", "a string", "a list of ints",
                                      "a list of floats", "a tensor"};
    return kNames[attribute.index()];
}

}  // namespace

int64_t Node::intAttr(const std::string& key, int64_t fallback) const {
    const auto it = attributes.find(key);
    if (it == attributes.end()) return fallback;
    if (const auto* value = std::get_if<int64_t>(&it->second)) return *value;
    opError(*this,
            "attribute '" + key + "' must be an int, but it is " + attributeTypeName(it->second));
}

double Node::floatAttr(const std::string& key, double fallback) const {
    const auto it = attributes.find(key);
    if (it == attributes.end()) return fallback;
    if (const auto* value = std::get_if<double>(&it->second)) return *value;
    if (const auto* value = std::get_if<int64_t>(&it->second)) return static_cast<double>(*value);
    opError(*this,
            "attribute '" + key + "' must be a float, but it is " + attributeTypeName(it->second));
}

std::map<ValueId, int> Graph::readerCounts() const {
    std::map<ValueId, int> readers;
    for (const Node& node : nodes) {
        for (ValueId id : node.inputs) {
            if (id != kNoValue) ++readers[id];
        }
    }
    return readers;
}

}  // namespace npusim::compiler
