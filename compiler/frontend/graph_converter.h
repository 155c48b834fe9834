// Converting a checked, shape-inferred ONNX graph into graph IR, one ONNX node at a time: each
// op's output types derived by the op table and cross-checked with ONNX's, nodes whose outputs
// are known at compile time folded into constants, and control flow (If, Loop, Scan) inlined
// from its subgraphs (control_flow.cpp). Internal to compiler/frontend.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/graph/graph.h"

namespace npusim::compiler::frontend {

class GraphConverter {
public:
    GraphConverter(const onnx::GraphProto& proto, int64_t opset, const std::map<std::string, Tensor>& bindings);

    Graph convert(const std::string& model);

private:
    /// Adds a value under `name` (the ONNX name at the top level; inside an inlined subgraph,
    /// a name of its own, which the subgraph's scope maps its ONNX name to).
    ValueId define(const std::string& name, DType dtype, Shape shape, std::optional<Tensor> constant = std::nullopt,
                   int producer = -1);
    /// The name a node output or constant of the current scope gets.
    std::string scopedName(const std::string& name);
    /// The value an ONNX name refers to: the innermost subgraph scope that defines it, else the
    /// top-level graph; nullopt when none does.
    std::optional<ValueId> find(const std::string& name) const;
    void addConstant(const std::string& name, Tensor tensor);
    void addConstantNode(const onnx::NodeProto& node);
    /// Adds an ONNX node (control flow inlined); its name prefixed inside a subgraph.
    void addNode(const onnx::NodeProto& proto);
    /// Adds a graph-IR node with outputs named `outputNames` (ONNX names, scoped, when
    /// `onnxNames`); types it, checks it against ONNX's types and folds it. Returns its outputs.
    std::vector<ValueId> addIrNode(Node node, const std::vector<std::string>& outputNames, bool onnxNames);
    /// A graph-IR node the importer makes itself (control flow's selects, slices and stacks),
    /// named `name`; returns its outputs.
    std::vector<ValueId> emit(OpKind kind, const std::string& name, std::vector<ValueId> inputs,
                              std::map<std::string, Attribute> attributes = {}, size_t outputs = 1);
    ValueId emitConstant(const std::string& name, Tensor tensor);
    void checkSizes(const Node& node);
    bool foldIfConstant();
    void checkAgainstOnnx(const Node& node) const;

    // control_flow.cpp
    /// Inlines `body` with its inputs bound to `inputs`, its names prefixed with `prefix`;
    /// returns the values of its outputs.
    std::vector<ValueId> inlineGraph(const onnx::GraphProto& body, const std::vector<ValueId>& inputs, const std::string& prefix);
    /// Gives a control-flow node's ONNX outputs their values (an Identity each, under the ONNX name).
    void bindOutputs(const onnx::NodeProto& proto, const std::vector<ValueId>& values);
    void addIf(const onnx::NodeProto& proto);
    void addLoop(const onnx::NodeProto& proto);
    void addScan(const onnx::NodeProto& proto);
    /// A scan input: its value, the axis its sequence runs along and whether it is read backwards.
    struct ScanInput {
        ValueId value = kNoValue;
        int64_t axis = 0;
        bool reverse = false;
    };
    /// Scan's steps; returns the final states, then the scan outputs stacked along their axes
    /// (in reverse where their direction is 1).
    std::vector<ValueId> unrollScan(const onnx::NodeProto& proto, const onnx::GraphProto& body, std::vector<ValueId> states,
                                    const std::vector<ScanInput>& scanInputs, const std::vector<int64_t>& outputAxes,
                                    const std::vector<int64_t>& outputDirections, const std::string& prefix);
    /// A node's name in the graph: its ONNX name, prefixed inside an inlined subgraph.
    std::string nodeName(const onnx::NodeProto& proto) const;
    /// `condition` ? a : b, folded when the condition is a constant.
    ValueId select(const std::string& name, ValueId condition, ValueId a, ValueId b);

    const onnx::GraphProto& proto_;
    const std::map<std::string, Tensor>& bindings_;
    Graph graph_;
    std::unordered_map<std::string, ValueId> ids_;
    std::unordered_map<std::string, const onnx::TypeProto*> onnxTypes_;
    /// Values computed from a data-dependent op's outputs (compiler/graph/data_dependent.h).
    std::set<ValueId> runTimeSized_;
    /// Inlined subgraphs being converted, innermost last: each maps the ONNX names it defines
    /// to the names they have in the graph, under the prefix its node names take.
    struct Scope {
        std::string prefix;
        std::map<std::string, std::string> names;
    };
    std::vector<Scope> scopes_;
};

}  // namespace npusim::compiler::frontend
