// Reference interpreter: runs the nodes in order on host tensors with each op's table semantics.
#include "compiler/graph/interpreter.h"

#include <algorithm>
#include <optional>

#include "arch/error.h"
#include "compiler/graph/data_dependent.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler {
namespace {

std::string typeText(DType dtype, const Shape& shape) {
    return std::string(dtypeName(dtype)) + shapeString(shape);
}

std::string inputNames(const Graph& graph) {
    std::string names;
    for (ValueId id : graph.inputs) {
        if (!names.empty()) names += ", ";
        names += graph.value(id).name;
    }
    return names.empty() ? "none" : names;
}

void checkProvidedInput(const Value& declared, const Tensor& given) {
    if (given.dtype != declared.dtype || given.shape != declared.shape) {
        throw InputError("input '" + declared.name + "': expected " +
                         typeText(declared.dtype, declared.shape) + ", got " +
                         typeText(given.dtype, given.shape));
    }
    const auto expectedBytes = static_cast<size_t>(given.elementCount()) * dtypeSize(given.dtype);
    if (given.bytes.size() != expectedBytes) {
        throw InputError("input '" + declared.name + "': " + typeText(given.dtype, given.shape) +
                         " needs " + std::to_string(expectedBytes) + " bytes, got " +
                         std::to_string(given.bytes.size()));
    }
}

}  // namespace

std::vector<Tensor> interpretGraph(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
    return interpretGraph(graph, inputs, {});
}

std::vector<Tensor> interpretGraph(const Graph& graph, const std::map<std::string, Tensor>& inputs,
                                   const NodeVisitor& visit) {
    // available[id] points at the tensor of each value computed so far: a constant, a provided
    // input or an op result owned by `results`.
    std::vector<const Tensor*> available(graph.values.size(), nullptr);
    std::vector<std::optional<Tensor>> results(graph.values.size());
    for (ValueId id = 0; id < graph.values.size(); ++id) {
        if (graph.values[id].constant) available[id] = &*graph.values[id].constant;
    }

    for (ValueId id : graph.inputs) {
        const Value& declared = graph.value(id);
        const auto it = inputs.find(declared.name);
        if (it == inputs.end()) {
            throw InputError("input '" + declared.name +
                             "' is missing (graph inputs: " + inputNames(graph) + ")");
        }
        checkProvidedInput(declared, it->second);
        available[id] = &it->second;
    }
    for (const auto& input : inputs) {
        const std::string& name = input.first;
        const bool known = std::any_of(graph.inputs.begin(), graph.inputs.end(),
                                       [&](ValueId id) { return graph.value(id).name == name; });
        if (!known) {
            throw InputError("'" + name +
                             "' is not a graph input (graph inputs: " + inputNames(graph) + ")");
        }
    }

    for (const Node& node : graph.nodes) {
        std::vector<const Tensor*> operands;
        for (ValueId id : node.inputs) {
            if (id != kNoValue && available.at(id) == nullptr) {
                opError(node, "input '" + graph.value(id).name +
                                  "' has no value yet; the nodes are not in topological order");
            }
            operands.push_back(id == kNoValue ? nullptr : available[id]);
        }
        std::vector<Tensor> outputs = opInfo(node.kind).interpret(node, operands);
        if (outputs.size() != node.outputs.size()) {
            opError(node, "computed " + std::to_string(outputs.size()) + " outputs, but " +
                              std::to_string(node.outputs.size()) + " are recorded");
        }
        if (visit) visit(node, outputs);
        for (size_t i = 0; i < outputs.size(); ++i) {
            const ValueId id = node.outputs[i];
            const Value& recorded = graph.value(id);
            if (outputs[i].dtype != recorded.dtype || outputs[i].shape != recorded.shape) {
                opError(node, "output '" + recorded.name + "' is recorded as " +
                                  typeText(recorded.dtype, recorded.shape) +
                                  " but the op computed " +
                                  typeText(outputs[i].dtype, outputs[i].shape));
            }
            results[id] = std::move(outputs[i]);
            available[id] = &*results[id];
        }
    }

    // Data-dependent sizes: the outputs they pad are cut to the size computed.
    std::map<std::string, int64_t> sizes;
    for (const Node& node : graph.nodes) {
        if (const std::optional<DataDependentSize> size = dataDependentSize(graph, node)) {
            const ValueId id = node.outputs[size->sizeOutput];
            sizes[graph.value(id).name] = available[id]->as<int64_t>()[0];
        }
    }
    std::vector<Tensor> outputs;
    for (ValueId id : graph.outputs) {
        if (available.at(id) == nullptr) {
            throw InputError("graph output '" + graph.value(id).name + "' is never computed");
        }
        const Value& value = graph.value(id);
        Shape shape = value.shape;
        for (size_t d = 0; d < value.symbols.size(); ++d) {
            if (const auto size = sizes.find(value.symbols[d]); size != sizes.end()) shape[d] = size->second;
        }
        outputs.push_back(shape == value.shape ? *available[id] : cropOrPad(*available[id], shape));
    }
    return outputs;
}

}  // namespace npusim::compiler
