// The ONNX-to-graph-IR conversion of one node at a time.
#include "compiler/frontend/graph_converter.h"

#include <algorithm>

#include "arch/error.h"
#include "compiler/frontend/onnx_nodes.h"
#include "compiler/frontend/onnx_proto_io.h"
#include "compiler/graph/constant_eval.h"
#include "compiler/graph/data_dependent.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::frontend {
namespace {

/// The dtype and static shape of a graph input; InputError for anything else.
std::pair<DType, Shape> staticTensorType(const onnx::TypeProto& type, const std::string& what) {
    if (!type.has_tensor_type()) throw InputError(what + " is not a tensor");
    const onnx::TypeProto::Tensor& tensor = type.tensor_type();
    const DType dtype = dtypeFromOnnx(tensor.elem_type(), what);
    if (!tensor.has_shape()) {
        throw InputError(what + " has no shape; only static shapes are supported");
    }
    Shape shape;
    for (int i = 0; i < tensor.shape().dim_size(); ++i) {
        const onnx::TensorShapeProto::Dimension& dim = tensor.shape().dim(i);
        if (dim.has_dim_value()) {
            shape.push_back(dim.dim_value());
        } else if (dim.has_dim_param()) {
            throw InputError(what + " has symbolic dimension '" + dim.dim_param() +
                             "'; give it a size (npusim compile --bucket " + dim.dim_param() + "=N,...)");
        } else {
            throw InputError(what + " has an unknown dimension " + std::to_string(i) +
                             "; only static shapes are supported");
        }
    }
    return {dtype, shape};
}

/// "FLOAT[3,?]" for an ONNX tensor type, as shape inference left it.
std::string onnxTypeText(const onnx::TypeProto::Tensor& tensor) {
    std::string text = onnxTypeName(tensor.elem_type());
    if (!tensor.has_shape()) return text + "[unknown rank]";
    text += "[";
    for (int i = 0; i < tensor.shape().dim_size(); ++i) {
        const onnx::TensorShapeProto::Dimension& dim = tensor.shape().dim(i);
        if (i) text += ",";
        text += dim.has_dim_value()   ? std::to_string(dim.dim_value())
                : dim.has_dim_param() ? dim.dim_param()
                                      : "?";
    }
    return text + "]";
}

/// True when what ONNX shape inference knows of a value agrees with npusim's type for it.
bool agreesWithOnnx(const Value& value, const onnx::TypeProto::Tensor& tensor) {
    if (tensor.elem_type() != onnx::TensorProto::UNDEFINED &&
        findDType(tensor.elem_type()) != value.dtype) {
        return false;
    }
    if (!tensor.has_shape()) return true;
    if (static_cast<size_t>(tensor.shape().dim_size()) != value.shape.size()) return false;
    for (int i = 0; i < tensor.shape().dim_size(); ++i) {
        const onnx::TensorShapeProto::Dimension& dim = tensor.shape().dim(i);
        if (dim.has_dim_value() && dim.dim_value() != value.shape[i]) return false;
    }
    return true;
}

Attribute convertAttribute(const Node& node, const onnx::AttributeProto& attribute) {
    switch (attribute.type()) {
        case onnx::AttributeProto::INT:
            return attribute.i();
        case onnx::AttributeProto::FLOAT:
            return static_cast<double>(attribute.f());
        case onnx::AttributeProto::STRING:
            return attribute.s();
        case onnx::AttributeProto::INTS:
            return std::vector<int64_t>(attribute.ints().begin(), attribute.ints().end());
        case onnx::AttributeProto::FLOATS:
            return std::vector<double>(attribute.floats().begin(), attribute.floats().end());
        case onnx::AttributeProto::TENSOR:
            return tensorFromProto(
                attribute.t(), opDiagnostic(node, "attribute '" + attribute.name() + "'"));
        default:
            opError(node, "attribute '" + attribute.name() + "' has type " +
                              onnx::AttributeProto::AttributeType_Name(attribute.type()) +
                              ", which is not supported (supported: INT, FLOAT, STRING, INTS, "
                              "FLOATS, TENSOR)");
    }
}

/// A 1-D tensor (a scalar when `scalar`) of `dtype` holding `values`.
template <class T>
Tensor listTensor(DType dtype, const std::vector<T>& values, bool scalar) {
    Tensor tensor =
        Tensor::zeros(dtype, scalar ? Shape{} : Shape{static_cast<int64_t>(values.size())});
    std::copy(values.begin(), values.end(), tensor.as<T>().begin());
    return tensor;
}

/// The value of a Constant node's one attribute: value (a tensor), value_float(s) (fp32) or
/// value_int(s) (int64).
Tensor constantNodeValue(const onnx::AttributeProto& attribute, const std::string& label) {
    const std::string& name = attribute.name();
    if (name == "value") return tensorFromProto(attribute.t(), label + " value");
    if (name == "value_float") return listTensor(DType::Fp32, std::vector{attribute.f()}, true);
    if (name == "value_int") return listTensor(DType::Int64, std::vector{attribute.i()}, true);
    if (name == "value_floats") {
        const std::vector<float> values(attribute.floats().begin(), attribute.floats().end());
        return listTensor(DType::Fp32, values, false);
    }
    if (name == "value_ints") {
        const std::vector<int64_t> values(attribute.ints().begin(), attribute.ints().end());
        return listTensor(DType::Int64, values, false);
    }
    throw InputError(label + ": attribute '" + name +
                     "' is not supported (supported: value, value_float, value_floats, "
                     "value_int, value_ints)");
}


}  // namespace

GraphConverter::GraphConverter(const onnx::GraphProto& proto, int64_t opset, const std::map<std::string, Tensor>& bindings)
    : proto_(proto), bindings_(bindings) {
    graph_.opset = opset;
    for (const auto* infos : {&proto.value_info(), &proto.output()}) {
        for (const onnx::ValueInfoProto& info : *infos) onnxTypes_[info.name()] = &info.type();
    }
}

Graph GraphConverter::convert(const std::string& model) {
    graph_.name = proto_.name();
    if (proto_.sparse_initializer_size() > 0) {
        throw InputError(model + " has sparse initializers, which are not supported");
    }
    for (const onnx::TensorProto& initializer : proto_.initializer()) {
        addConstant(
            initializer.name(),
            tensorFromProto(initializer, "initializer '" + initializer.name() + "'"));
    }
    for (const onnx::ValueInfoProto& input : proto_.input()) {
        if (ids_.contains(input.name())) continue;  // an initializer: a constant
        const auto [dtype, shape] =
            staticTensorType(input.type(), "input '" + input.name() + "'");
        if (const auto bound = bindings_.find(input.name()); bound != bindings_.end()) {
            const Tensor& value = bound->second;
            if (value.dtype != dtype || value.shape != shape) {
                throw InputError("input '" + input.name() + "' is " + std::string(dtypeName(dtype)) +
                                 shapeString(shape) + ", but the value bound to it is " +
                                 std::string(dtypeName(value.dtype)) + shapeString(value.shape));
            }
            addConstant(input.name(), value);
            continue;
        }
        graph_.inputs.push_back(define(input.name(), dtype, shape));
    }
    for (const onnx::NodeProto& node : proto_.node()) {
        if (node.op_type() == "Constant" && isDefaultDomain(node.domain())) {
            addConstantNode(node);
        } else {
            addNode(node);
        }
    }
    for (const onnx::ValueInfoProto& output : proto_.output()) {
        const auto it = ids_.find(output.name());
        if (it == ids_.end()) {
            throw InputError(model + ": graph output '" + output.name() +
                             "' is not produced by any node");
        }
        graph_.outputs.push_back(it->second);
    }
    return std::move(graph_);
}

ValueId GraphConverter::define(const std::string& name, DType dtype, Shape shape, std::optional<Tensor> constant, int producer) {
    const ValueId id = graph_.addValue(Value{name, dtype, std::move(shape), std::move(constant), producer, {}});
    ids_[name] = id;
    return id;
}

std::string GraphConverter::scopedName(const std::string& name) {
    if (scopes_.empty()) return name;
    std::string unique = scopes_.back().prefix + name;
    while (ids_.contains(unique)) unique += "_";
    scopes_.back().names[name] = unique;
    return unique;
}

std::optional<ValueId> GraphConverter::find(const std::string& name) const {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
        if (const auto it = scope->names.find(name); it != scope->names.end()) return ids_.at(it->second);
    }
    const auto it = ids_.find(name);
    return it == ids_.end() ? std::nullopt : std::optional<ValueId>(it->second);
}

void GraphConverter::addConstant(const std::string& name, Tensor tensor) {
    const DType dtype = tensor.dtype;
    Shape shape = tensor.shape;
    define(scopedName(name), dtype, std::move(shape), std::move(tensor));
}

void GraphConverter::addConstantNode(const onnx::NodeProto& node) {
    const std::string label = onnxNodeLabel(node);
    // The ONNX checker has made sure that there is exactly one attribute.
    for (const onnx::AttributeProto& attribute : node.attribute()) {
        addConstant(node.output(0), constantNodeValue(attribute, label));
    }
}

void GraphConverter::addNode(const onnx::NodeProto& proto) {
    if (isDefaultDomain(proto.domain())) {
        if (proto.op_type() == "If") return addIf(proto);
        if (proto.op_type() == "Loop") return addLoop(proto);
        if (proto.op_type() == "Scan") return addScan(proto);
    }
    // A vendor's op is known by its domain and type ("com.microsoft.QuickGelu").
    const std::optional<OpKind> kind =
        findOpKind(isDefaultDomain(proto.domain()) ? proto.op_type() : proto.domain() + "." + proto.op_type());
    const std::string name = nodeName(proto);
    if (!kind) {
        onnx::NodeProto named = proto;
        named.set_name(name);
        throw InputError(onnxNodeLabel(named) + " is not an op npusim runs (npusim compile MODEL --mapping lists the "
                         "model's ops and what npusim does with each)");
    }
    Node node{name, *kind, {}, {}, {}};
    for (const onnx::AttributeProto& attribute : proto.attribute()) {
        node.attributes[attribute.name()] = convertAttribute(node, attribute);
    }
    for (const std::string& input : proto.input()) {
        if (input.empty()) {
            node.inputs.push_back(kNoValue);
            continue;
        }
        const std::optional<ValueId> id = find(input);
        if (!id) opError(node, "input '" + input + "' is not defined");
        node.inputs.push_back(*id);
    }
    std::vector<std::string> outputs(proto.output().begin(), proto.output().end());
    // A data-dependent op has all its ONNX outputs, then its size output.
    if (const std::optional<size_t> onnxOutputs = onnxOutputCount(node.kind)) outputs.resize(*onnxOutputs + 1);
    addIrNode(std::move(node), outputs, true);
}

std::vector<ValueId> GraphConverter::addIrNode(Node node, const std::vector<std::string>& outputNames, bool onnxNames) {
    const bool dataDependent = onnxOutputCount(node.kind).has_value();
    for (size_t index = 0; index < outputNames.size(); ++index) {
        // An absent optional output (empty name) is still computed, into a value no one reads.
        std::string output = outputNames[index];
        if (output.empty()) {
            output = node.name + (dataDependent && index + 1 == outputNames.size() ? ".size" : ".unused" + std::to_string(index));
            while (ids_.contains(output)) output += "_";
        } else if (onnxNames && scopes_.empty() && ids_.contains(output)) {
            opError(node, "output '" + output + "' must be a new name");
        } else if (onnxNames) {
            output = scopedName(output);
        }
        // The type function fills in the dtype and shape once the node is complete.
        const auto producer = static_cast<int>(graph_.nodes.size());
        node.outputs.push_back(define(output, DType::Fp32, {}, std::nullopt, producer));
    }
    graph_.nodes.push_back(std::move(node));
    const Node& added = graph_.nodes.back();
    opInfo(added.kind).inferTypes(graph_, added);
    checkSizes(added);
    // Values from a data-dependent size on are padded to their bounds: ONNX's dims are the real ones.
    const bool padded = dataDependent || std::any_of(added.inputs.begin(), added.inputs.end(),
                                                     [&](ValueId id) { return runTimeSized_.contains(id); });
    if (!padded) checkAgainstOnnx(added);
    const std::vector<ValueId> outputIds = added.outputs;
    if (!foldIfConstant() && padded) runTimeSized_.insert(outputIds.begin(), outputIds.end());
    return outputIds;
}

std::vector<ValueId> GraphConverter::emit(OpKind kind, const std::string& name, std::vector<ValueId> inputs,
                                          std::map<std::string, Attribute> attributes, size_t outputs) {
    std::vector<std::string> names(outputs);
    for (size_t i = 0; i < outputs; ++i) {
        names[i] = i == 0 ? name : name + "." + std::to_string(i);
        while (ids_.contains(names[i])) names[i] += "_";
    }
    return addIrNode(Node{name, kind, std::move(inputs), {}, std::move(attributes)}, names, false);
}

ValueId GraphConverter::emitConstant(const std::string& name, Tensor tensor) {
    std::string unique = name;
    while (ids_.contains(unique)) unique += "_";
    const DType dtype = tensor.dtype;
    Shape shape = tensor.shape;
    return define(unique, dtype, std::move(shape), std::move(tensor));
}

void GraphConverter::checkSizes(const Node& node) {
    // No tensor may be larger than any memory npusim models (its byte count must not overflow either).
    constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;
    for (ValueId id : node.outputs) {
        const Value& value = graph_.value(id);
        int64_t bytes = static_cast<int64_t>(dtypeSize(value.dtype));
        for (int64_t dim : value.shape) {
            if (dim < 0 || __builtin_mul_overflow(bytes, dim, &bytes) || bytes > kMaxTensorBytes) {
                opError(node, "output '" + value.name + "' of shape " + shapeString(value.shape) + " is larger than 1 TiB");
            }
        }
    }
}

bool GraphConverter::foldIfConstant() {
    // Replaces the node just added by constants when its outputs are known at compile time (shape
    // computations: Shape -> Gather -> Concat -> Reshape), so that the ops reading them see
    // constant shapes. A data-dependent op folds to its actual size. Shape and Size of a value
    // sized at run time stay ops (markDataDependentOutputs names them).
    const Node& node = graph_.nodes.back();
    if ((node.kind == OpKind::Shape || node.kind == OpKind::Size) && runTimeSized_.contains(node.inputs.at(0))) return false;
    std::optional<std::vector<Tensor>> folded = evaluateIfConstant(graph_, node);
    if (!folded) return false;
    const std::vector<ValueId> outputs = graph_.nodes.back().outputs;
    graph_.nodes.pop_back();
    for (size_t i = 0; i < outputs.size(); ++i) {
        Value& value = graph_.value(outputs[i]);
        value.shape = (*folded)[i].shape;
        value.constant = std::move((*folded)[i]);
        value.producer = -1;
    }
    return true;
}

void GraphConverter::checkAgainstOnnx(const Node& node) const {
    // Cross-checks the op table's output types with ONNX's shape inference (of the top-level graph).
    for (ValueId id : node.outputs) {
        const Value& value = graph_.value(id);
        const auto it = onnxTypes_.find(value.name);
        if (it == onnxTypes_.end() || !it->second->has_tensor_type()) continue;
        const onnx::TypeProto::Tensor& tensor = it->second->tensor_type();
        if (!agreesWithOnnx(value, tensor)) {
            opError(node, "output '" + value.name + "' is " + std::string(dtypeName(value.dtype)) + shapeString(value.shape) +
                              " by npusim's rules, but ONNX shape inference gives " + onnxTypeText(tensor));
        }
    }
}

}  // namespace npusim::compiler::frontend
