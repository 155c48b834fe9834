// GraphRewriter: the new node list, producers kept in step, types from the op table.
#include "compiler/passes/graph_rewriter.h"

#include <cstring>

#include "compiler/graph/constant_eval.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler {

Tensor int64Tensor(const std::vector<int64_t>& values) {
    Tensor out = Tensor::zeros(DType::Int64, {static_cast<int64_t>(values.size())});
    std::memcpy(out.bytes.data(), values.data(), out.bytes.size());
    return out;
}

std::vector<ValueId> GraphRewriter::add(OpKind kind, const std::string& name, std::vector<ValueId> inputs,
                                        std::map<std::string, Attribute> attributes, std::vector<ValueId> outputs,
                                        size_t outputCount) {
    const auto producer = static_cast<int>(nodes_.size());
    const bool freshOutputs = outputs.empty();
    for (size_t i = outputs.size(); i < outputCount; ++i) {
        Value value;
        value.name = uniqueName(name + "." + std::to_string(i));
        outputs.push_back(graph_.addValue(std::move(value)));
    }
    for (ValueId id : outputs) graph_.value(id).producer = producer;
    nodes_.push_back(Node{name, kind, std::move(inputs), outputs, std::move(attributes)});
    opInfo(kind).inferTypes(graph_, nodes_.back());
    // A node of constants (a product of two quantisation scales, say) is its value: no kernel
    // computes it at run time.
    if (freshOutputs) {
        if (std::optional<std::vector<Tensor>> folded = evaluateIfConstant(graph_, nodes_.back())) {
            for (size_t i = 0; i < outputs.size(); ++i) {
                graph_.value(outputs[i]).constant = std::move((*folded)[i]);
                graph_.value(outputs[i]).producer = -1;
            }
            nodes_.pop_back();
        }
    }
    return outputs;
}

ValueId GraphRewriter::constant(const std::string& name, Tensor tensor) {
    Value value;
    value.name = uniqueName(name);
    value.dtype = tensor.dtype;
    value.shape = tensor.shape;
    value.constant = std::move(tensor);
    return graph_.addValue(std::move(value));
}

std::string GraphRewriter::uniqueName(const std::string& name) {
    if (names_.empty()) {
        for (const Value& value : graph_.values) names_.insert(value.name);
    }
    std::string unique = name;
    for (int n = 1; names_.contains(unique); ++n) unique = name + "_" + std::to_string(n);
    names_.insert(unique);
    return unique;
}

void GraphRewriter::run(const std::function<bool(const Node&)>& replace) {
    nodes_.clear();
    // Producers are recorded afresh as nodes are kept or added; a value no node produces any
    // more (a result rewritten away) is left dead.
    for (Value& value : graph_.values) value.producer = -1;
    std::vector<Node> old = std::move(graph_.nodes);
    graph_.nodes.clear();
    for (Node& node : old) {
        if (replace(node)) continue;
        for (ValueId id : node.outputs) graph_.value(id).producer = static_cast<int>(nodes_.size());
        nodes_.push_back(std::move(node));
    }
    graph_.nodes = std::move(nodes_);
}

}  // namespace npusim::compiler
