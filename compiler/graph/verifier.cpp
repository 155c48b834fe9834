// Graph IR verifier: value ids in range, single definitions before use, consistent producer
// links and constants, and each op's output types re-derived by its type function.
#include "compiler/graph/verifier.h"

#include "arch/error.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler {
namespace {

std::string typeText(DType dtype, const Shape& shape) {
    return std::string(dtypeName(dtype)) + shapeString(shape);
}

[[noreturn]] void valueError(const Value& value, const std::string& message) {
    throw InputError("value '" + value.name + "' " + message);
}

void checkIdsInRange(const Graph& graph, const std::vector<ValueId>& ids, const char* role) {
    for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] >= graph.values.size()) {
            throw InputError("graph " + std::string(role) + " " + std::to_string(i) +
                             " refers to value id " + std::to_string(ids[i]) +
                             ", but the graph has " + std::to_string(graph.values.size()) +
                             " values");
        }
    }
}

/// The index of each value's producing node (-1 for none), checking that no value is defined
/// twice and that ops produce neither graph inputs nor constants.
std::vector<int> findProducers(const Graph& graph, const std::vector<bool>& isInput) {
    std::vector<int> producers(graph.values.size(), -1);
    for (size_t index = 0; index < graph.nodes.size(); ++index) {
        const Node& node = graph.nodes[index];
        for (ValueId id : node.outputs) {
            const Value& value = graph.value(id);
            if (isInput[id] || value.constant) {
                opError(node, "output '" + value.name + "' is a graph " +
                                  (isInput[id] ? "input" : "constant") +
                                  " and cannot be produced by an op");
            }
            if (producers[id] >= 0) {
                opError(node, "output '" + value.name + "' is already produced by op '" +
                                  graph.nodes[producers[id]].name + "'");
            }
            producers[id] = static_cast<int>(index);
        }
    }
    return producers;
}

/// Checks each value's constant data and recorded producer. A value nothing produces, reads or
/// returns (one a graph pass rewrote away) is dead and allowed.
void checkValues(const Graph& graph, const std::vector<bool>& isInput,
                 const std::vector<int>& producers) {
    std::vector<bool> used(graph.values.size());
    for (const Node& node : graph.nodes) {
        for (ValueId id : node.inputs) {
            if (id != kNoValue) used[id] = true;
        }
    }
    for (ValueId id : graph.outputs) used[id] = true;
    for (ValueId id = 0; id < graph.values.size(); ++id) {
        const Value& value = graph.values[id];
        if (value.constant) {
            const Tensor& data = *value.constant;
            if (data.dtype != value.dtype || data.shape != value.shape) {
                valueError(value, "has constant data " + typeText(data.dtype, data.shape) +
                                      " but is declared " + typeText(value.dtype, value.shape));
            }
            const auto expectedBytes =
                static_cast<size_t>(data.elementCount()) * dtypeSize(data.dtype);
            if (data.bytes.size() != expectedBytes) {
                valueError(value, "has " + std::to_string(data.bytes.size()) +
                                      " bytes of constant data, but " +
                                      typeText(data.dtype, data.shape) + " needs " +
                                      std::to_string(expectedBytes));
            }
        } else if (!isInput[id] && producers[id] < 0 && used[id]) {
            valueError(value, "has no producer and is neither a graph input nor a constant");
        }
        if (value.producer != producers[id]) {
            const std::string actual = producers[id] < 0
                                           ? "no op produces it"
                                           : "op '" + graph.nodes[producers[id]].name + "' (node " +
                                                 std::to_string(producers[id]) + ") produces it";
            valueError(value,
                       "records producer " + std::to_string(value.producer) + ", but " + actual);
        }
    }
}

void checkTopologicalOrder(const Graph& graph, const std::vector<bool>& isInput,
                           const std::vector<int>& producers) {
    std::vector<bool> defined(graph.values.size());
    for (ValueId id = 0; id < graph.values.size(); ++id) {
        defined[id] = isInput[id] || graph.values[id].constant.has_value();
    }
    for (const Node& node : graph.nodes) {
        for (ValueId id : node.inputs) {
            if (id == kNoValue || defined[id]) continue;
            opError(node, "input '" + graph.value(id).name +
                              "' is used before it is defined (by op '" +
                              graph.nodes[producers[id]].name + "')");
        }
        for (ValueId id : node.outputs) defined[id] = true;
    }
}

/// Re-runs every op's type function and compares with what is recorded. It runs on the graph
/// itself (a network's weights are too large to copy for this): each op's outputs are put
/// back as recorded once compared, so the graph is left as it was.
void checkRecordedTypes(Graph& graph) {
    std::vector<Value> recorded;
    for (const Node& node : graph.nodes) {
        recorded.clear();
        for (ValueId id : node.outputs) recorded.push_back(graph.value(id));
        struct PutBack {
            Graph& graph;
            const Node& node;
            std::vector<Value>& recorded;
            ~PutBack() {
                for (size_t i = node.outputs.size(); i-- > 0;) graph.value(node.outputs[i]) = std::move(recorded[i]);
            }
        } putBack{graph, node, recorded};
        opInfo(node.kind).inferTypes(graph, node);
        for (size_t i = 0; i < node.outputs.size(); ++i) {
            const Value& computed = graph.value(node.outputs[i]);
            if (recorded[i].dtype != computed.dtype || recorded[i].shape != computed.shape) {
                opError(node, "output '" + recorded[i].name + "' is recorded as " +
                                  typeText(recorded[i].dtype, recorded[i].shape) +
                                  " but the op computes " + typeText(computed.dtype, computed.shape));
            }
        }
    }
}

}  // namespace

void verifyGraph(const Graph& graph) {
    Graph scratch = graph;
    verifyGraph(scratch);
}

void verifyGraph(Graph& graph) {
    checkIdsInRange(graph, graph.inputs, "input");
    checkIdsInRange(graph, graph.outputs, "output");
    std::vector<bool> isInput(graph.values.size());
    for (ValueId id : graph.inputs) {
        const Value& value = graph.value(id);
        if (isInput[id]) valueError(value, "is listed twice as a graph input");
        if (value.constant) valueError(value, "is a graph input and cannot be a constant");
        isInput[id] = true;
    }
    for (const Node& node : graph.nodes) ops::checkArity(graph, node);
    const std::vector<int> producers = findProducers(graph, isInput);
    checkValues(graph, isInput, producers);
    checkTopologicalOrder(graph, isInput, producers);
    checkRecordedTypes(graph);
}

}  // namespace npusim::compiler
