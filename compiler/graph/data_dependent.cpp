// Which outputs of a data-dependent op are padded, and where the padding goes in the graph.
#include "compiler/graph/data_dependent.h"

#include <algorithm>

#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/padding_check.h"

namespace npusim::compiler {

std::optional<size_t> onnxOutputCount(OpKind kind) {
    switch (kind) {
        case OpKind::NonZero:
        case OpKind::Compress:
        case OpKind::NonMaxSuppression: return 1;
        case OpKind::Unique: return 4;
        default: return std::nullopt;
    }
}

std::optional<DataDependentSize> dataDependentSize(const Graph& graph, const Node& node) {
    const std::optional<size_t> outputs = onnxOutputCount(node.kind);
    if (!outputs) return std::nullopt;
    DataDependentSize size{*outputs, {}};
    const auto axisOr = [&](int64_t flattened) {
        if (!node.attributes.contains("axis")) return flattened;
        return ops::normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(graph.value(node.inputs[0]).shape.size()));
    };
    switch (node.kind) {
        case OpKind::NonZero: size.dims = {{0, 1}}; break;
        case OpKind::Compress: size.dims = {{0, axisOr(0)}}; break;
        case OpKind::NonMaxSuppression: size.dims = {{0, 0}}; break;
        default: size.dims = {{0, axisOr(0)}, {1, 0}, {3, 0}}; break;  // Unique: Y, indices, counts
    }
    return size;
}

void markDataDependentOutputs(Graph& graph) {
    // Shape and Size are folded into constants, unless their input is sized at run time.
    std::set<ValueId> runTimeSized;
    for (const Node& node : graph.nodes) {
        const bool sized = dataDependentSize(graph, node) ||
                           std::any_of(node.inputs.begin(), node.inputs.end(), [&](ValueId id) { return runTimeSized.contains(id); });
        if (!sized) continue;
        if (node.kind == OpKind::Shape || node.kind == OpKind::Size) {
            opError(node, "reads the shape of a value whose size depends on run-time data (a NonZero, Compress, Unique or "
                          "NonMaxSuppression before it); npusim compiles static shapes only");
        }
        runTimeSized.insert(node.outputs.begin(), node.outputs.end());
    }
    for (const Node& node : graph.nodes) {
        const std::optional<DataDependentSize> size = dataDependentSize(graph, node);
        if (!size) continue;
        std::map<ValueId, std::set<int64_t>> seeds;
        for (const auto& [output, dim] : size->dims) seeds[node.outputs[output]].insert(dim);
        const std::string& symbol = graph.value(node.outputs[size->sizeOutput]).name;
        const auto carried =
            followPadding(graph, std::move(seeds), "the padding of op '" + node.name + "' (" + std::string(opInfo(node.kind).name) + ")",
                          ", whose output size depends on its input values: npusim runs it padded to its largest size, and only "
                          "ops that keep the padding apart may read it");
        for (ValueId id : graph.outputs) {
            const auto found = carried.find(id);
            if (found == carried.end() || found->second.empty()) continue;
            Value& value = graph.value(id);
            value.symbols.resize(value.shape.size());
            for (int64_t d : found->second) value.symbols[static_cast<size_t>(d)] = symbol;
        }
    }
}

}  // namespace npusim::compiler
