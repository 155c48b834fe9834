// Control flow, inlined from its subgraphs into the one static graph the compiler schedules:
//   If: the branch a constant condition picks; for a run-time condition, both branches and a
//   select (Where) per output, which must then agree in type.
//   Loop: unrolled, every iteration's body inlined. A loop known to run its trip count
//   (constant, with a condition that stays true) is plain dataflow; otherwise each iteration is
//   guarded (its states kept where it does not run) and the scan outputs are cut to the
//   iterations that ran (a Compress: a data-dependent size). A trip count known only at run
//   time unrolls to the length the model declares for a scan output.
//   Scan: unrolled over its sequence (opset 8's batch dim one element at a time).
#include <algorithm>

#include "arch/error.h"
#include "compiler/frontend/graph_converter.h"
#include "compiler/frontend/onnx_nodes.h"
#include "compiler/frontend/onnx_proto_io.h"
#include "compiler/graph/op_support.h"

namespace npusim::compiler::frontend {
namespace {

/// Loops unroll into at most this many inlined body nodes.
constexpr size_t kMaxUnrolledNodes = 200000;

const onnx::GraphProto& graphAttribute(const onnx::NodeProto& proto, const std::string& name) {
    for (const onnx::AttributeProto& attribute : proto.attribute()) {
        if (attribute.name() == name && attribute.type() == onnx::AttributeProto::GRAPH) return attribute.g();
    }
    throw InputError(onnxNodeLabel(proto) + " has no graph attribute '" + name + "'");
}

int64_t intAttribute(const onnx::NodeProto& proto, const std::string& name, int64_t fallback) {
    for (const onnx::AttributeProto& attribute : proto.attribute()) {
        if (attribute.name() == name) return attribute.i();
    }
    return fallback;
}

/// An INTS attribute, or `count` copies of `fallback` when absent.
std::vector<int64_t> intsAttribute(const onnx::NodeProto& proto, const std::string& name, size_t count, int64_t fallback) {
    for (const onnx::AttributeProto& attribute : proto.attribute()) {
        if (attribute.name() == name) {
            if (static_cast<size_t>(attribute.ints_size()) != count) {
                throw InputError(onnxNodeLabel(proto) + ": attribute '" + name + "' has " + std::to_string(attribute.ints_size()) +
                                 " entries for " + std::to_string(count) + " values");
            }
            return {attribute.ints().begin(), attribute.ints().end()};
        }
    }
    return std::vector<int64_t>(count, fallback);
}

Tensor scalar(DType dtype, int64_t value) {
    Tensor t = Tensor::zeros(dtype, {});
    if (dtype == DType::Bool) {
        t.as<uint8_t>()[0] = value != 0;
    } else {
        t.as<int64_t>()[0] = value;
    }
    return t;
}

/// The truth of a one-element condition known at compile time.
std::optional<bool> constantTruth(const Value& value) {
    if (!value.constant || value.constant->elementCount() != 1) return std::nullopt;
    return value.constant->valueAt(0) != 0;
}

}  // namespace

std::vector<ValueId> GraphConverter::inlineGraph(const onnx::GraphProto& body, const std::vector<ValueId>& inputs,
                                                 const std::string& prefix) {
    if (static_cast<size_t>(body.input_size()) != inputs.size()) {
        throw InputError("subgraph '" + body.name() + "' of " + prefix + " takes " + std::to_string(body.input_size()) +
                         " inputs, but " + std::to_string(inputs.size()) + " are given");
    }
    onnx::GraphProto named = body;
    nameNodes(named);
    scopes_.push_back({prefix, {}});
    for (int i = 0; i < body.input_size(); ++i) scopes_.back().names[body.input(i).name()] = graph_.value(inputs[static_cast<size_t>(i)]).name;
    for (const onnx::TensorProto& initializer : named.initializer()) {
        addConstant(initializer.name(), tensorFromProto(initializer, "initializer '" + initializer.name() + "'"));
    }
    for (const onnx::NodeProto& node : named.node()) {
        if (node.op_type() == "Constant" && isDefaultDomain(node.domain())) {
            addConstantNode(node);
        } else {
            addNode(node);
        }
    }
    std::vector<ValueId> outputs;
    for (const onnx::ValueInfoProto& output : named.output()) {
        const std::optional<ValueId> id = find(output.name());
        if (!id) throw InputError("subgraph '" + body.name() + "' of " + prefix + " returns '" + output.name() + "', which it never computes");
        outputs.push_back(*id);
    }
    scopes_.pop_back();
    return outputs;
}

void GraphConverter::bindOutputs(const onnx::NodeProto& proto, const std::vector<ValueId>& values) {
    for (int i = 0; i < proto.output_size() && static_cast<size_t>(i) < values.size(); ++i) {
        if (proto.output(i).empty()) continue;
        addIrNode(Node{nodeName(proto) + "/" + proto.output(i), OpKind::Identity, {values[static_cast<size_t>(i)]}, {}, {}},
                  {proto.output(i)}, true);
    }
}

std::string GraphConverter::nodeName(const onnx::NodeProto& proto) const {
    return scopes_.empty() ? proto.name() : scopes_.back().prefix + proto.name();
}

ValueId GraphConverter::select(const std::string& name, ValueId condition, ValueId a, ValueId b) {
    if (const std::optional<bool> truth = constantTruth(graph_.value(condition))) return *truth ? a : b;
    return emit(OpKind::Where, name, {condition, a, b})[0];
}

void GraphConverter::addIf(const onnx::NodeProto& proto) {
    const std::string name = nodeName(proto);
    const std::optional<ValueId> condition = find(proto.input(0));
    if (!condition) throw InputError(onnxNodeLabel(proto) + ": input '" + proto.input(0) + "' is not defined");
    const onnx::GraphProto& thenBranch = graphAttribute(proto, "then_branch");
    const onnx::GraphProto& elseBranch = graphAttribute(proto, "else_branch");
    if (const std::optional<bool> truth = constantTruth(graph_.value(*condition))) {
        return bindOutputs(proto, inlineGraph(*truth ? thenBranch : elseBranch, {}, name + (*truth ? "/then/" : "/else/")));
    }
    const std::vector<ValueId> thenValues = inlineGraph(thenBranch, {}, name + "/then/");
    const std::vector<ValueId> elseValues = inlineGraph(elseBranch, {}, name + "/else/");
    std::vector<ValueId> selected;
    for (size_t i = 0; i < thenValues.size() && i < elseValues.size(); ++i) {
        const Value& a = graph_.value(thenValues[i]);
        const Value& b = graph_.value(elseValues[i]);
        if (a.dtype != b.dtype || a.shape != b.shape) {
            throw InputError(onnxNodeLabel(proto) + ": output " + std::to_string(i) + " is " + std::string(dtypeName(a.dtype)) +
                             shapeString(a.shape) + " in then_branch but " + std::string(dtypeName(b.dtype)) + shapeString(b.shape) +
                             " in else_branch; with a condition known only at run time npusim computes both branches and "
                             "selects, so they must agree");
        }
        selected.push_back(select(name + "/select" + std::to_string(i), *condition, thenValues[i], elseValues[i]));
    }
    bindOutputs(proto, selected);
}

void GraphConverter::addLoop(const onnx::NodeProto& proto) {
    const std::string name = nodeName(proto);
    const std::string label = onnxNodeLabel(proto);
    const onnx::GraphProto& body = graphAttribute(proto, "body");
    const auto input = [&](int i) -> std::optional<ValueId> {
        if (i >= proto.input_size() || proto.input(i).empty()) return std::nullopt;
        const std::optional<ValueId> id = find(proto.input(i));
        if (!id) throw InputError(label + ": input '" + proto.input(i) + "' is not defined");
        return id;
    };
    const std::optional<ValueId> tripCount = input(0);
    std::vector<ValueId> states;
    for (int i = 2; i < proto.input_size(); ++i) states.push_back(*input(i));
    const size_t stateCount = states.size();
    if (static_cast<size_t>(body.output_size()) < 1 + stateCount) throw InputError(label + ": the body returns too few values");
    const size_t scanCount = static_cast<size_t>(body.output_size()) - 1 - stateCount;

    // How many iterations to unroll: the trip count, else what a scan output's declared length allows.
    std::optional<int64_t> bound;
    if (tripCount && graph_.value(*tripCount).constant) {
        bound = std::max<int64_t>(static_cast<int64_t>(graph_.value(*tripCount).constant->valueAt(0)), 0);
    }
    for (size_t k = 0; k < scanCount && !bound; ++k) {
        const auto declared = onnxTypes_.find(proto.output(static_cast<int>(stateCount + k)));
        if (declared == onnxTypes_.end() || !declared->second->has_tensor_type()) continue;
        const auto& shape = declared->second->tensor_type().shape();
        if (shape.dim_size() > 0 && shape.dim(0).has_dim_value()) bound = shape.dim(0).dim_value();
    }
    if (!bound) {
        throw InputError(label + ": its trip count is known only at run time and the model declares no length for a scan "
                                 "output; npusim unrolls loops, so it needs a constant trip count or such a bound");
    }
    if (static_cast<size_t>(*bound) * static_cast<size_t>(std::max(body.node_size(), 1)) > kMaxUnrolledNodes) {
        throw InputError(label + ": unrolling " + std::to_string(*bound) + " iterations of its " + std::to_string(body.node_size()) +
                         "-node body would make more than " + std::to_string(kMaxUnrolledNodes) + " nodes");
    }
    if (*bound == 0 && scanCount > 0) throw InputError(label + ": a loop that runs no iteration has empty scan outputs, which npusim does not make");

    // active: whether iteration i runs (its condition holds and i is below the trip count).
    const std::optional<ValueId> initialCondition = input(1);
    ValueId active = initialCondition ? *initialCondition : emitConstant(name + "/true", scalar(DType::Bool, 1));
    const auto belowTripCount = [&](int64_t i, ValueId running) {
        if (!tripCount || graph_.value(*tripCount).constant) return running;  // the unrolling stops there
        const ValueId index = emitConstant(name + "/index" + std::to_string(i), scalar(DType::Int64, i));
        const ValueId below = emit(OpKind::Less, name + "/below" + std::to_string(i), {index, *tripCount})[0];
        return emit(OpKind::And, name + "/runs" + std::to_string(i), {running, below})[0];
    };
    active = belowTripCount(0, active);
    std::vector<ValueId> actives;
    std::vector<std::vector<ValueId>> scans(scanCount);
    for (int64_t i = 0; i < *bound; ++i) {
        const std::string step = name + "/iteration" + std::to_string(i) + "/";
        const ValueId iteration = emitConstant(step + "number", scalar(DType::Int64, i));
        std::vector<ValueId> bodyInputs{iteration, active};
        bodyInputs.insert(bodyInputs.end(), states.begin(), states.end());
        const std::vector<ValueId> outputs = inlineGraph(body, bodyInputs, step);
        for (size_t j = 0; j < stateCount; ++j) states[j] = select(step + "state" + std::to_string(j), active, outputs[1 + j], states[j]);
        for (size_t k = 0; k < scanCount; ++k) scans[k].push_back(outputs[1 + stateCount + k]);
        actives.push_back(active);
        active = emit(OpKind::And, step + "continues", {active, outputs[0]})[0];
        active = belowTripCount(i + 1, active);
    }

    // Scan outputs: the iterations' values stacked, cut to the iterations that ran.
    const bool allRan = std::all_of(actives.begin(), actives.end(), [&](ValueId a) { return constantTruth(graph_.value(a)) == true; });
    std::vector<ValueId> results = states;
    for (size_t k = 0; k < scanCount; ++k) {
        std::vector<ValueId> rows;
        for (size_t i = 0; i < scans[k].size(); ++i) {
            rows.push_back(emit(OpKind::Unsqueeze, name + "/scan" + std::to_string(k) + "." + std::to_string(i), {scans[k][i]},
                                {{"axes", std::vector<int64_t>{0}}})[0]);
        }
        ValueId stacked = emit(OpKind::Concat, name + "/scan" + std::to_string(k), rows, {{"axis", int64_t{0}}})[0];
        if (!allRan) {
            std::vector<ValueId> flags;
            for (size_t i = 0; i < actives.size(); ++i) {
                flags.push_back(emit(OpKind::Unsqueeze, name + "/ran" + std::to_string(i), {actives[i]}, {{"axes", std::vector<int64_t>{0}}})[0]);
            }
            const ValueId ran = emit(OpKind::Concat, name + "/ran", flags, {{"axis", int64_t{0}}})[0];
            stacked = emit(OpKind::Compress, name + "/scan" + std::to_string(k) + "/ran", {stacked, ran}, {{"axis", int64_t{0}}}, 2)[0];
        }
        results.push_back(stacked);
    }
    bindOutputs(proto, results);
}

std::vector<ValueId> GraphConverter::unrollScan(const onnx::NodeProto& proto, const onnx::GraphProto& body, std::vector<ValueId> states,
                                                const std::vector<ScanInput>& scanInputs, const std::vector<int64_t>& outputAxes,
                                                const std::vector<int64_t>& outputDirections, const std::string& prefix) {
    const std::string label = onnxNodeLabel(proto);
    if (scanInputs.empty()) throw InputError(label + " has no scan input");
    const Shape& first = graph_.value(scanInputs[0].value).shape;
    const int64_t length = first.at(static_cast<size_t>(scanInputs[0].axis));
    if (static_cast<size_t>(length) * static_cast<size_t>(std::max(body.node_size(), 1)) > kMaxUnrolledNodes) {
        throw InputError(label + ": unrolling its " + std::to_string(length) + " steps would make more than " +
                         std::to_string(kMaxUnrolledNodes) + " nodes");
    }
    const size_t stateCount = states.size();
    const size_t scanCount = static_cast<size_t>(body.output_size()) - stateCount;
    std::vector<std::vector<ValueId>> scans(scanCount);
    for (int64_t t = 0; t < length; ++t) {
        const std::string step = prefix + "step" + std::to_string(t) + "/";
        std::vector<ValueId> bodyInputs = states;
        for (size_t j = 0; j < scanInputs.size(); ++j) {
            const ScanInput& in = scanInputs[j];
            if (graph_.value(in.value).shape.at(static_cast<size_t>(in.axis)) != length) {
                throw InputError(label + ": its scan inputs differ in length");
            }
            const ValueId index = emitConstant(step + "index" + std::to_string(j), scalar(DType::Int64, in.reverse ? length - 1 - t : t));
            bodyInputs.push_back(emit(OpKind::Gather, step + "slice" + std::to_string(j), {in.value, index}, {{"axis", in.axis}})[0]);
        }
        const std::vector<ValueId> outputs = inlineGraph(body, bodyInputs, step);
        std::copy_n(outputs.begin(), stateCount, states.begin());
        for (size_t k = 0; k < scanCount; ++k) scans[k].push_back(outputs[stateCount + k]);
    }
    std::vector<ValueId> results = states;
    for (size_t k = 0; k < scanCount; ++k) {
        if (outputDirections[k] != 0) std::reverse(scans[k].begin(), scans[k].end());
        const auto rank = static_cast<int64_t>(graph_.value(scans[k][0]).shape.size()) + 1;
        const int64_t axis = outputAxes[k] < 0 ? outputAxes[k] + rank : outputAxes[k];
        std::vector<ValueId> rows;
        for (size_t t = 0; t < scans[k].size(); ++t) {
            rows.push_back(emit(OpKind::Unsqueeze, prefix + "scan" + std::to_string(k) + "." + std::to_string(t), {scans[k][t]},
                                {{"axes", std::vector<int64_t>{axis}}})[0]);
        }
        results.push_back(emit(OpKind::Concat, prefix + "scan" + std::to_string(k), rows, {{"axis", axis}})[0]);
    }
    return results;
}

void GraphConverter::addScan(const onnx::NodeProto& proto) {
    const std::string name = nodeName(proto);
    const std::string label = onnxNodeLabel(proto);
    const onnx::GraphProto& body = graphAttribute(proto, "body");
    const auto scanInputCount = static_cast<size_t>(intAttribute(proto, "num_scan_inputs", 0));
    std::vector<std::optional<ValueId>> inputs;
    for (const std::string& input : proto.input()) {
        if (input.empty()) {
            inputs.push_back(std::nullopt);
            continue;
        }
        const std::optional<ValueId> id = find(input);
        if (!id) throw InputError(label + ": input '" + input + "' is not defined");
        inputs.push_back(id);
    }
    if (graph_.opset >= 9) {
        if (inputs.size() < scanInputCount) throw InputError(label + ": fewer inputs than num_scan_inputs");
        const size_t stateCount = inputs.size() - scanInputCount;
        const size_t scanOutputs = static_cast<size_t>(body.output_size()) - stateCount;
        const std::vector<int64_t> axes = intsAttribute(proto, "scan_input_axes", scanInputCount, 0);
        const std::vector<int64_t> directions = intsAttribute(proto, "scan_input_directions", scanInputCount, 0);
        std::vector<ValueId> states;
        for (size_t i = 0; i < stateCount; ++i) states.push_back(*inputs[i]);
        std::vector<ScanInput> scanInputs;
        for (size_t j = 0; j < scanInputCount; ++j) {
            const ValueId value = *inputs[stateCount + j];
            const auto rank = static_cast<int64_t>(graph_.value(value).shape.size());
            if (axes[j] < -rank || axes[j] >= rank) throw InputError(label + ": scan input axis " + std::to_string(axes[j]) + " is out of range");
            scanInputs.push_back({value, axes[j] < 0 ? axes[j] + rank : axes[j], directions[j] != 0});
        }
        return bindOutputs(proto, unrollScan(proto, body, states, scanInputs, intsAttribute(proto, "scan_output_axes", scanOutputs, 0),
                                             intsAttribute(proto, "scan_output_directions", scanOutputs, 0), name + "/"));
    }
    // Opset 8: inputs [sequence_lens, states..., scan inputs...], each with a batch dim first;
    // the sequence is dim 1. Each batch element runs on its own; the results are stacked.
    if (inputs.empty() || inputs.size() < 1 + scanInputCount) throw InputError(label + ": fewer inputs than num_scan_inputs");
    if (inputs[0]) throw InputError(label + ": sequence_lens (sequences of different lengths) is not supported; npusim scans whole sequences");
    const size_t stateCount = inputs.size() - 1 - scanInputCount;
    const size_t scanOutputs = static_cast<size_t>(body.output_size()) - stateCount;
    const std::vector<int64_t> directions = intsAttribute(proto, "directions", scanInputCount, 0);
    const int64_t batch = graph_.value(*inputs[1]).shape.at(0);
    std::vector<std::vector<ValueId>> perBatch;
    for (int64_t b = 0; b < batch; ++b) {
        const std::string element = name + "/batch" + std::to_string(b) + "/";
        const ValueId index = emitConstant(element + "index", scalar(DType::Int64, b));
        const auto take = [&](ValueId value, size_t i) { return emit(OpKind::Gather, element + "in" + std::to_string(i), {value, index}, {{"axis", int64_t{0}}})[0]; };
        std::vector<ValueId> states;
        for (size_t i = 0; i < stateCount; ++i) states.push_back(take(*inputs[1 + i], i));
        std::vector<ScanInput> scanInputs;
        for (size_t j = 0; j < scanInputCount; ++j) scanInputs.push_back({take(*inputs[1 + stateCount + j], stateCount + j), 0, directions[j] != 0});
        perBatch.push_back(unrollScan(proto, body, states, scanInputs, std::vector<int64_t>(scanOutputs, 0),
                                      std::vector<int64_t>(scanOutputs, 0), element));
    }
    std::vector<ValueId> results;
    for (size_t r = 0; r < perBatch.at(0).size(); ++r) {
        std::vector<ValueId> rows;
        for (int64_t b = 0; b < batch; ++b) {
            rows.push_back(emit(OpKind::Unsqueeze, name + "/result" + std::to_string(r) + "." + std::to_string(b),
                                {perBatch[static_cast<size_t>(b)][r]}, {{"axes", std::vector<int64_t>{0}}})[0]);
        }
        results.push_back(emit(OpKind::Concat, name + "/result" + std::to_string(r), rows, {{"axis", int64_t{0}}})[0]);
    }
    bindOutputs(proto, results);
}

}  // namespace npusim::compiler::frontend
