// ONNX frontend: read, name and order the nodes, run ONNX's checker and shape inference, then
// convert to graph IR, derive every output type with the op table, fold the nodes whose outputs
// are known at compile time into constants and verify the result.
#include "compiler/frontend/onnx_import.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "arch/error.h"
#include "compiler/frontend/graph_converter.h"
#include "compiler/frontend/onnx_nodes.h"
#include "compiler/frontend/onnx_proto_io.h"
#include "compiler/graph/data_dependent.h"
#include "compiler/graph/onnx_element_types.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/verifier.h"

namespace npusim::compiler {
namespace {

std::string firstLine(const char* text) {
    const std::string message = text;
    return message.substr(0, message.find('\n'));
}

/// The opset the model imports for the default ONNX domain; the graph IR's default when it
/// imports none (it then has no default-domain ops).
int64_t defaultDomainOpset(const onnx::ModelProto& model) {
    for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
        if (frontend::isDefaultDomain(opset.domain())) return opset.version();
    }
    return Graph{}.opset;
}


/// Per dim of a value's declared type: its dim_param, or "" (empty when none has one).
std::vector<std::string> declaredSymbols(const onnx::TypeProto& type) {
    std::vector<std::string> symbols;
    if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return symbols;
    bool any = false;
    for (const auto& dim : type.tensor_type().shape().dim()) {
        symbols.push_back(dim.has_dim_param() ? dim.dim_param() : "");
        any = any || dim.has_dim_param();
    }
    if (!any) symbols.clear();
    return symbols;
}

/// Gives the graph inputs' symbolic dims named in `dims` their sizes, before shape inference.
void sizeSymbolicInputs(onnx::GraphProto& graph, const std::map<std::string, int64_t>& dims,
                        const std::string& model) {
    std::set<std::string> used;
    for (onnx::ValueInfoProto& input : *graph.mutable_input()) {
        if (!input.type().has_tensor_type() || !input.type().tensor_type().has_shape()) continue;
        for (auto& dim : *input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
            if (!dim.has_dim_param()) continue;
            const auto size = dims.find(dim.dim_param());
            if (size == dims.end()) continue;
            used.insert(size->first);
            dim.set_dim_value(size->second);
        }
    }
    for (const auto& [name, size] : dims) {
        if (!used.contains(name)) throw InputError(model + " has no input with symbolic dimension '" + name + "'");
    }
}

/// A declared graph input or output as a binding; InputError without a tensor type and shape.
TensorBinding declaredBinding(const onnx::ValueInfoProto& info, const std::string& model) {
    const onnx::TypeProto& type = info.type();
    if (!type.has_tensor_type() || !type.tensor_type().has_shape()) {
        throw InputError(model + ": '" + info.name() + "' declares no tensor type and shape");
    }
    const auto dtype = dtypeOfOnnxElementType(type.tensor_type().elem_type());
    if (!dtype) {
        throw InputError(model + ": '" + info.name() + "' has element type " +
                         onnxElementTypeName(type.tensor_type().elem_type()) + ", which npusim does not take");
    }
    TensorBinding binding{info.name(), *dtype, {}, 0, declaredSymbols(type), -1};
    for (const auto& dim : type.tensor_type().shape().dim()) binding.shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    return binding;
}

}  // namespace

OnnxInterface readOnnxInterface(const std::filesystem::path& path) {
    const std::string model = "model '" + path.string() + "'";
    onnx::ModelProto proto;
    frontend::readProtoFile(path, proto, "model", "a valid ONNX file");
    std::set<std::string> initializers;
    for (const onnx::TensorProto& tensor : proto.graph().initializer()) initializers.insert(tensor.name());
    OnnxInterface result;
    for (const onnx::ValueInfoProto& info : proto.graph().input()) {
        if (!initializers.contains(info.name())) result.inputs.push_back(declaredBinding(info, model));
    }
    for (const onnx::ValueInfoProto& info : proto.graph().output()) result.outputs.push_back(declaredBinding(info, model));
    return result;
}

std::vector<OnnxOpSupport> surveyOnnxOps(const std::filesystem::path& path) {
    onnx::ModelProto proto;
    frontend::readProtoFile(path, proto, "model", "a valid ONNX file");
    frontend::nameNodes(*proto.mutable_graph());
    std::vector<OnnxOpSupport> ops;
    for (const onnx::NodeProto& node : proto.graph().node()) {
        const bool standard = frontend::isDefaultDomain(node.domain());
        const std::string type = standard ? node.op_type() : node.domain() + "." + node.op_type();
        const bool controlFlow = standard && (type == "If" || type == "Loop" || type == "Scan");
        ops.push_back({node.name(), type, controlFlow || findOpKind(type).has_value()});
    }
    return ops;
}

Graph importOnnx(const std::filesystem::path& path, const std::map<std::string, Tensor>& bindings,
                 const std::map<std::string, int64_t>& dims) {
    const std::string model = "model '" + path.string() + "'";
    onnx::ModelProto proto;
    frontend::readProtoFile(path, proto, "model", "a valid ONNX file");
    std::map<std::string, std::vector<std::string>> symbols;
    for (const auto* infos : {&proto.graph().input(), &proto.graph().output()}) {
        for (const onnx::ValueInfoProto& info : *infos) symbols[info.name()] = declaredSymbols(info.type());
    }
    sizeSymbolicInputs(*proto.mutable_graph(), dims, model);
    frontend::nameNodes(*proto.mutable_graph());
    frontend::sortNodesTopologically(*proto.mutable_graph(), model);
    try {
        onnx::checker::check_model(proto);
    } catch (const std::exception& e) {
        throw InputError(model + " rejected by the ONNX checker: " + firstLine(e.what()));
    }
    try {
        onnx::shape_inference::InferShapes(proto);
    } catch (const std::exception& e) {
        throw InputError(model + " rejected by ONNX shape inference: " + firstLine(e.what()));
    }
    for (const auto& binding : bindings) {
        const std::string& name = binding.first;
        const auto& inputs = proto.graph().input();
        if (std::none_of(inputs.begin(), inputs.end(), [&](const onnx::ValueInfoProto& input) { return input.name() == name; })) {
            throw InputError(model + " has no input '" + name + "' to bind");
        }
    }
    Graph graph = frontend::GraphConverter(proto.graph(), defaultDomainOpset(proto), bindings).convert(model);
    for (const std::vector<ValueId>* ids : {&graph.inputs, &graph.outputs}) {
        for (ValueId id : *ids) graph.value(id).symbols = symbols[graph.value(id).name];
    }
    markDataDependentOutputs(graph);
    verifyGraph(graph);
    return graph;
}

}  // namespace npusim::compiler
