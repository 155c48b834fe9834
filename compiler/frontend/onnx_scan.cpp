// Scanning an ONNX model for ops and element types npusim does not know.
#include "compiler/frontend/onnx_scan.h"

#include <onnx/onnx_pb.h>

#include <algorithm>

#include "compiler/frontend/onnx_nodes.h"
#include "compiler/frontend/onnx_proto_io.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler {
namespace {

class FeatureList {
public:
    void add(std::string feature) {
        if (std::find(features_.begin(), features_.end(), feature) == features_.end()) {
            features_.push_back(std::move(feature));
        }
    }
    void elementType(int32_t type) {
        if (type != onnx::TensorProto::UNDEFINED && !frontend::findDType(type)) {
            add("element type " + frontend::onnxTypeName(type));
        }
    }
    void valueInfo(const onnx::ValueInfoProto& info) {
        if (info.type().value_case() == onnx::TypeProto::VALUE_NOT_SET) return;  // a subgraph's value left to inference
        if (info.type().has_tensor_type()) {
            elementType(info.type().tensor_type().elem_type());
        } else {
            add("non-tensor value '" + info.name() + "' (sequence, map or optional)");
        }
    }
    /// The ops and element types of `graph`'s nodes, those of subgraphs (control flow) included.
    void nodes(const onnx::GraphProto& graph) {
        for (const onnx::TensorProto& initializer : graph.initializer()) elementType(initializer.data_type());
        for (const onnx::NodeProto& node : graph.node()) {
            const bool controlFlow = node.op_type() == "If" || node.op_type() == "Loop" || node.op_type() == "Scan";
            const bool known = frontend::isDefaultDomain(node.domain()) &&
                               (node.op_type() == "Constant" || controlFlow || findOpKind(node.op_type()));
            if (!known) {
                add("op " + (frontend::isDefaultDomain(node.domain()) ? "" : node.domain() + ".") + node.op_type());
            }
            for (const onnx::AttributeProto& attribute : node.attribute()) {
                if (attribute.type() == onnx::AttributeProto::TENSOR) elementType(attribute.t().data_type());
                if (attribute.type() == onnx::AttributeProto::GRAPH) {
                    for (const onnx::ValueInfoProto& value : attribute.g().input()) valueInfo(value);
                    for (const onnx::ValueInfoProto& value : attribute.g().output()) valueInfo(value);
                    nodes(attribute.g());
                }
            }
        }
    }
    std::vector<std::string> take() { return std::move(features_); }

private:
    std::vector<std::string> features_;
};

}  // namespace

std::vector<std::string> unsupportedFeatures(const std::filesystem::path& model) {
    onnx::ModelProto proto;
    frontend::readProtoFile(model, proto, "model", "a valid ONNX file");
    const onnx::GraphProto& graph = proto.graph();
    FeatureList features;
    for (const onnx::ValueInfoProto& input : graph.input()) features.valueInfo(input);
    for (const onnx::ValueInfoProto& output : graph.output()) features.valueInfo(output);
    features.nodes(graph);
    return features.take();
}

std::vector<FedInput> fedInputs(const std::filesystem::path& model) {
    onnx::ModelProto proto;
    frontend::readProtoFile(model, proto, "model", "a valid ONNX file");
    std::set<std::string> initializers;
    for (const onnx::TensorProto& initializer : proto.graph().initializer()) initializers.insert(initializer.name());
    std::vector<FedInput> inputs;
    for (const onnx::ValueInfoProto& input : proto.graph().input()) {
        if (initializers.contains(input.name())) continue;
        const auto& type = input.type();
        inputs.push_back({input.name(), type.has_tensor_type() ? frontend::findDType(type.tensor_type().elem_type())
                                                               : std::nullopt});
    }
    return inputs;
}

std::set<std::string> shapeDecidingInputs(const std::filesystem::path& model) {
    onnx::ModelProto proto;
    frontend::readProtoFile(model, proto, "model", "a valid ONNX file");
    const onnx::GraphProto& graph = proto.graph();
    std::set<std::string> inputs, initializers, names;
    for (const onnx::ValueInfoProto& input : graph.input()) inputs.insert(input.name());
    for (const onnx::TensorProto& initializer : graph.initializer()) initializers.insert(initializer.name());
    // The values a shape operand is computed from, back through the nodes that compute them
    // (nodes come in topological order, so one walk backwards finds them all).
    std::set<std::string> deciding;
    for (int n = graph.node_size(); n-- > 0;) {
        const onnx::NodeProto& node = graph.node(n);
        bool feeds = false;
        for (const std::string& output : node.output()) feeds = feeds || deciding.contains(output);
        if (feeds) deciding.insert(node.input().begin(), node.input().end());
        // A Loop's trip count and condition decide how often it runs, so its outputs' shapes.
        if (frontend::isDefaultDomain(node.domain()) && node.op_type() == "Loop") {
            for (int index = 0; index < 2 && index < node.input_size(); ++index) deciding.insert(node.input(index));
        }
        const std::optional<OpKind> kind =
            frontend::isDefaultDomain(node.domain()) ? findOpKind(node.op_type()) : std::nullopt;
        if (!kind) continue;
        for (int index : shapeOperands(*kind)) {
            if (index < node.input_size()) deciding.insert(node.input(index));
        }
    }
    for (const std::string& name : deciding) {
        if (inputs.contains(name) && !initializers.contains(name)) names.insert(name);
    }
    return names;
}

}  // namespace npusim::compiler
