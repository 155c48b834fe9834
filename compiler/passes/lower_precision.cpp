// lower-precision: the model's GEMMs at a 16-bit float precision (`--precision bf16|fp16`).
// Each fp32 MatMul and Gemm takes its A and B in the narrow type: weights converted when the
// model is compiled, activations through an explicit Cast. Its result is the narrow type,
// rounded once from the fp32 accumulator, when only narrow ops read it; when an fp32 op or the
// graph's outputs read it, the sums stay fp32 (output_type), so that op can still run as the
// GEMM's epilogue. The data-movement ops whose every reader is narrow (an Im2Col feeding a
// convolution's GEMM, an attention's reshapes and transposes) move the narrow type too. Every
// other op computes as declared (the vector unit's float arithmetic is fp32), with a Cast back
// before it where it reads a narrow tensor. The graph's inputs and outputs keep their types; a
// Gemm's bias stays fp32: the accumulator adds it.
#include "compiler/passes/lower_precision.h"

#include <algorithm>
#include <set>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/onnx_element_types.h"
#include "compiler/graph/op_table.h"
#include "compiler/passes/graph_rewriter.h"

namespace npusim::compiler {
namespace {

bool isGemm(OpKind kind) { return kind == OpKind::MatMul || kind == OpKind::Gemm; }

/// Ops that only move elements: they take any dtype and move fewer bytes of a narrower one.
bool movesOnly(OpKind kind) {
    switch (kind) {
        case OpKind::Im2Col:
        case OpKind::Reformat:
        case OpKind::Reshape:
        case OpKind::Flatten:
        case OpKind::Squeeze:
        case OpKind::Unsqueeze:
        case OpKind::Transpose:
        case OpKind::Identity:
        case OpKind::Concat:
        case OpKind::Slice: return true;
        default: return false;
    }
}

/// The precision an op is kept at by the overrides (its name first, then its type).
std::optional<Precision> overrideOf(const Node& node, const PrecisionOptions& options) {
    if (const auto byName = options.overrides.find(node.name); byName != options.overrides.end()) return byName->second;
    const auto byType = options.overrides.find(std::string(opInfo(node.kind).name));
    if (byType != options.overrides.end()) return byType->second;
    return std::nullopt;
}

/// Whether input `slot` of `node` carries data the op computes on in its precision (a Gemm's
/// bias and the shape, index and size inputs of the movement ops do not).
bool narrowSlot(const Node& node, size_t slot) {
    if (isGemm(node.kind)) return slot < 2;
    if (node.kind == OpKind::Concat) return true;
    return slot == 0;
}

/// The ops that run narrow: every fp32 GEMM not kept wide, then, until nothing changes, each
/// movement op whose every reader is narrow (a movement op read by an fp32 op stays fp32, so
/// that the GEMM before it keeps fp32 results and its epilogue can take that op).
std::vector<bool> narrowOps(const Graph& graph, const PrecisionOptions& options, DType narrow) {
    std::vector<bool> result(graph.nodes.size(), false);
    std::vector<std::vector<size_t>> readers(graph.values.size());
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
        for (ValueId id : graph.nodes[n].inputs) {
            if (id != kNoValue) readers[id].push_back(n);
        }
    }
    const std::set<ValueId> outputs(graph.outputs.begin(), graph.outputs.end());
    auto allowed = [&](const Node& node) {
        const std::optional<Precision> kept = overrideOf(node, options);
        if (kept && precisionDType(*kept) != narrow) return false;
        for (size_t slot = 0; slot < node.inputs.size(); ++slot) {
            if (node.inputs[slot] != kNoValue && narrowSlot(node, slot) && graph.value(node.inputs[slot]).dtype != DType::Fp32) {
                return false;
            }
        }
        return std::all_of(node.outputs.begin(), node.outputs.end(),
                           [&](ValueId id) { return graph.value(id).dtype == DType::Fp32; });
    };
    for (size_t n = 0; n < graph.nodes.size(); ++n) result[n] = isGemm(graph.nodes[n].kind) && allowed(graph.nodes[n]);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t n = 0; n < graph.nodes.size(); ++n) {
            const Node& node = graph.nodes[n];
            if (result[n] || !movesOnly(node.kind) || !allowed(node) || outputs.contains(node.outputs[0])) continue;
            bool toNarrow = !outputs.contains(node.outputs[0]) && !readers[node.outputs[0]].empty();
            for (ValueId out : node.outputs) {
                for (size_t reader : readers[out]) toNarrow = toNarrow && result[reader];
            }
            if (toNarrow) result[n] = changed = true;
        }
    }
    return result;
}

}  // namespace

void lowerPrecision(Graph& graph, const PrecisionOptions& options) {
    const DType narrow = precisionDType(options.precision);
    if (narrow != DType::Bf16 && narrow != DType::Fp16) return;
    const std::vector<bool> narrowed = narrowOps(graph, options, narrow);
    std::set<ValueId> narrowValues;             // results of narrow ops, now of the narrow type
    std::map<ValueId, ValueId> toNarrow, toWide;  // Casts and converted constants, one per value
    // Values whose every reader runs narrow (and that are no graph output).
    std::vector<bool> narrowReaders(graph.values.size(), true);
    for (ValueId id : graph.outputs) narrowReaders[id] = false;
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
        for (size_t slot = 0; slot < graph.nodes[n].inputs.size(); ++slot) {
            const ValueId id = graph.nodes[n].inputs[slot];
            if (id != kNoValue && (!narrowed[n] || !narrowSlot(graph.nodes[n], slot))) narrowReaders[id] = false;
        }
    }
    GraphRewriter r(graph);
    const int64_t narrowCode = onnxElementTypeOf(narrow), wideCode = onnxElementTypeOf(DType::Fp32);
    size_t index = 0;
    r.run([&](const Node& node) {
        const bool isNarrow = narrowed[index++];
        std::vector<ValueId> inputs = node.inputs;
        bool changed = false;
        for (size_t slot = 0; slot < inputs.size(); ++slot) {
            const ValueId id = inputs[slot];
            if (id == kNoValue) continue;
            const Value& value = graph.value(id);
            if (isNarrow && narrowSlot(node, slot) && value.dtype == DType::Fp32) {
                auto [cached, fresh] = toNarrow.try_emplace(id, kNoValue);
                if (fresh) {
                    cached->second = value.constant
                                         ? r.constant(value.name + "." + std::string(dtypeName(narrow)),
                                                      ops::floatTensor(narrow, value.shape, ops::floatValues(*value.constant)))
                                         : r.add(OpKind::Cast, value.name + ".to_" + std::string(dtypeName(narrow)), {id},
                                                 {{"to", narrowCode}})[0];
                }
                inputs[slot] = cached->second;
                changed = true;
            } else if ((!isNarrow || !narrowSlot(node, slot)) && narrowValues.contains(id)) {
                auto [cached, fresh] = toWide.try_emplace(id, kNoValue);
                if (fresh) cached->second = r.add(OpKind::Cast, value.name + ".to_fp32", {id}, {{"to", wideCode}})[0];
                inputs[slot] = cached->second;
                changed = true;
            }
        }
        if (!isNarrow && !changed) return false;
        if (!isNarrow) {
            r.add(node.kind, node.name, inputs, node.attributes, node.outputs, node.outputs.size());
            return true;
        }
        // A narrow op writes its result in the narrow type, unless it is a GEMM whose result an
        // fp32 op or the graph's outputs read: the accumulator's sums then stay fp32
        // (output_type), and the op that reads them takes them without a Cast.
        std::map<std::string, Attribute> attributes = node.attributes;
        const bool wideResult = isGemm(node.kind) && !narrowReaders[node.outputs[0]];
        if (wideResult) attributes["output_type"] = wideCode;
        r.add(node.kind, node.name, inputs, attributes, node.outputs, node.outputs.size());
        if (!wideResult) narrowValues.insert(node.outputs.begin(), node.outputs.end());
        return true;
    });
}

}  // namespace npusim::compiler
