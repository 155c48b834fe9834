// Row-wise ops on the vector unit: the reduced dims of the input form each on-chip row, the
// kept dims the rows. Reductions reduce each row to one value; Softmax, LogSoftmax and
// LayerNormalization normalise each row with its own statistics.
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/window_geometry.h"
#include "compiler/tile/index_space.h"
#include "compiler/tiling/vector_lowering.h"

namespace npusim::compiler {
namespace {

using isa::VectorOp;

int64_t reducedCount(const Shape& shape, const std::vector<bool>& reduced) {
    int64_t count = 1;
    for (size_t d = 0; d < shape.size(); ++d) count *= reduced[d] ? shape[d] : 1;
    return count;
}

/// Which dims of the input a Reduce* node reduces, nullopt for a no-op (empty axes with
/// noop_with_empty_axes).
std::optional<std::vector<bool>> reducedDims(const Graph& graph, const Node& node) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const std::vector<int64_t> axes = ops::intsFromAttributeOrInput(graph, node, "axes", 1).value_or(std::vector<int64_t>{});
    if (axes.empty() && node.intAttr("noop_with_empty_axes", 0) != 0) return std::nullopt;
    std::vector<bool> reduced(shape.size(), axes.empty());
    for (int64_t axis : axes) {
        reduced[static_cast<size_t>(ops::normalizeAxis(node, axis, static_cast<int64_t>(shape.size())))] = true;
    }
    return reduced;
}

/// The Column result of a Reduce* node's row.
uint32_t reduction(VectorBuilder& b, OpKind kind, uint32_t x, int64_t count) {
    switch (kind) {
        case OpKind::ReduceSum: return b.reduce(VectorOp::ReduceSum, x);
        case OpKind::ReduceMean:
            return b.scalar(VectorOp::Mul, b.reduce(VectorOp::ReduceSum, x), 1.0f / static_cast<float>(count));
        case OpKind::ReduceMax: return b.reduce(VectorOp::ReduceMax, x);
        case OpKind::ReduceMin:
            return b.scalar(VectorOp::Mul, b.reduce(VectorOp::ReduceMax, b.scalar(VectorOp::Mul, x, -1.0f)), -1.0f);
        case OpKind::ReduceSumSquare: return b.reduce(VectorOp::ReduceSum, b.binary(VectorOp::Mul, x, x));
        case OpKind::ReduceL1:
            return b.reduce(VectorOp::ReduceSum, b.binary(VectorOp::Max, x, b.scalar(VectorOp::Mul, x, -1.0f)));
        case OpKind::ReduceL2:
            return b.unary(VectorOp::Sqrt, b.reduce(VectorOp::ReduceSum, b.binary(VectorOp::Mul, x, x)));
        case OpKind::ReduceLogSum: return b.unary(VectorOp::Log, b.reduce(VectorOp::ReduceSum, x));
        case OpKind::ReduceLogSumExp: {
            const uint32_t top = b.reduce(VectorOp::ReduceMax, x);
            const uint32_t shifted = b.unary(VectorOp::Exp, b.binary(VectorOp::Sub, x, top));
            return b.binary(VectorOp::Add, b.unary(VectorOp::Log, b.reduce(VectorOp::ReduceSum, shifted)), top);
        }
        default: throw VectorUnsupported("the vector unit has no " + std::string(opInfo(kind).name));
    }
}

bool isReduction(OpKind kind) {
    switch (kind) {
        case OpKind::ReduceSum:
        case OpKind::ReduceMean:
        case OpKind::ReduceMax:
        case OpKind::ReduceMin:
        case OpKind::ReduceProd:
        case OpKind::ReduceSumSquare:
        case OpKind::ReduceL1:
        case OpKind::ReduceL2:
        case OpKind::ReduceLogSum:
        case OpKind::ReduceLogSumExp: return true;
        default: return false;
    }
}

VectorProblem spaceProblem(const Graph& graph, uint32_t opId, std::string name, IndexSpace space, size_t keptDims,
                           std::span<const ValueId> inputs, std::span<const ValueId> outputs, const RowwiseBody& body) {
    size_t rows = simplifyDims(space, 0, keptDims);
    simplifyDims(space, rows, space.dims.size());
    if (rows == 0) {
        insertUnitDim(space, 0);
        rows = 1;
    }
    if (space.dims.size() == rows) insertUnitDim(space, rows);
    const int colDims = static_cast<int>(space.dims.size() - rows);

    VectorBuilder b(opId, std::move(name), space.dims, colDims);
    std::vector<Operand> operands;
    for (size_t i = 0; i < inputs.size(); ++i) {
        operands.push_back({b.load({inputs[i], 0, space.strides[outputs.size() + i]}, graph.value(inputs[i]).dtype), 0});
    }
    const std::vector<uint32_t> results = body(b, operands);
    for (size_t i = 0; i < outputs.size(); ++i) b.store(results.at(i), {outputs[i], 0, space.strides[i]});
    return b.finish();
}

}  // namespace

VectorProblem rowwiseProblem(const Graph& graph, uint32_t opId, std::string name, const Shape& shape,
                             const std::vector<bool>& reduced, std::span<const ValueId> inputs,
                             std::span<const ValueId> outputs, const RowwiseBody& body) {
    // Operands: the outputs (full or per row), then the inputs, all over `shape`.
    IndexSpace space;
    space.dims = shape;
    Shape kept = shape;
    for (size_t d = 0; d < shape.size(); ++d) kept[d] = reduced[d] ? 1 : shape[d];
    for (ValueId id : outputs) {
        const bool perRow = elementCount(graph.value(id).shape) != elementCount(shape);
        space.add(broadcastTo(perRow ? kept : shape, shape));
    }
    for (ValueId id : inputs) space.add(broadcastTo(graph.value(id).shape, shape));
    // Kept dims first, then the reduced ones.
    std::vector<size_t> order;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (!reduced[d]) order.push_back(d);
    }
    const size_t keptDims = order.size();
    for (size_t d = 0; d < shape.size(); ++d) {
        if (reduced[d]) order.push_back(d);
    }
    permuteDims(space, order);
    return spaceProblem(graph, opId, std::move(name), std::move(space), keptDims, inputs, outputs, body);
}

namespace {

/// A run of output positions along one spatial axis whose windows read the same kernel taps
/// of the input: kernel indices [kFirst, kFirst + kCount) fall inside the input, `padded` of
/// them inside the padded input.
struct WindowSegment {
    int64_t start = 0, extent = 0, kFirst = 0, kCount = 0, padded = 0;
};

/// The output positions along `axis` cut into segments whose windows read the same taps.
std::vector<WindowSegment> windowSegments(const ops::WindowGeometry& g, size_t axis) {
    std::vector<WindowSegment> segments;
    for (int64_t o = 0; o < g.output[axis]; ++o) {
        WindowSegment s{o, 1, 0, 0, 0};
        bool first = true;
        for (int64_t k = 0; k < g.kernel[axis]; ++k) {
            const int64_t at = o * g.strides[axis] - g.padBegin[axis] + k * g.dilations[axis];
            if (at >= -g.padBegin[axis] && at < g.input[axis] + g.padEnd[axis]) ++s.padded;
            if (at < 0 || at >= g.input[axis]) continue;
            if (first) s.kFirst = k;
            first = false;
            ++s.kCount;
        }
        WindowSegment* last = segments.empty() ? nullptr : &segments.back();
        if (last && last->kFirst == s.kFirst && last->kCount == s.kCount && last->padded == s.padded) {
            ++last->extent;
        } else {
            segments.push_back(s);
        }
    }
    return segments;
}

}  // namespace

void forEachWindowBox(const ops::WindowGeometry& g, std::span<const int64_t> in, std::span<const int64_t> out,
                      const std::function<void(const WindowBox&)>& visit) {
    std::vector<std::vector<WindowSegment>> segments;
    Shape counts;
    for (size_t i = 0; i < g.kernel.size(); ++i) {
        segments.push_back(windowSegments(g, i));
        counts.push_back(static_cast<int64_t>(segments.back().size()));
    }
    ops::forEachPosition(counts, [&](const std::vector<int64_t>& choice) {
        WindowBox box;
        for (size_t i = 0; i < segments.size(); ++i) {
            const WindowSegment& s = segments[i][static_cast<size_t>(choice[i])];
            box.extents.push_back(s.extent);
            box.taps.push_back(s.kCount);
            box.kFirst.push_back(s.kFirst);
            box.paddedTaps *= s.padded;
            box.outputOffset += s.start * out[i + 2];
            box.outputStrides.push_back(out[i + 2]);
            box.tapStrides.push_back(g.strides[i] * in[i + 2]);
            box.tapOrigin += (s.start * g.strides[i] - g.padBegin[i] + s.kFirst * g.dilations[i]) * in[i + 2];
        }
        visit(box);
    });
}

namespace {

/// MaxPool and AveragePool: the output is cut into boxes (a segment of every spatial axis)
/// within which each window reads the same kernel taps, so padding is never read. In a box, each
/// tap is one strided view of X; the taps are combined elementwise (max, or sum then scale by
/// the box's divisor).
std::vector<VectorProblem> poolProblems(const Graph& graph, const Node& node, uint32_t opId) {
    const Value& x = graph.value(node.inputs[0]);
    const Shape spatial(x.shape.begin() + 2, x.shape.end());
    const ops::WindowGeometry g =
        ops::windowGeometry(node, spatial, ops::intListAttr(node, "kernel_shape"), node.intAttr("ceil_mode", 0) != 0);
    const bool max = node.kind == OpKind::MaxPool;
    const bool includePad = node.intAttr("count_include_pad", 0) != 0;
    const std::vector<int64_t> in = ops::rowMajorStrides(x.shape);
    const Shape& y = graph.value(node.outputs[0]).shape;
    const std::vector<int64_t> out = ops::rowMajorStrides(y);
    std::vector<VectorProblem> problems;
    forEachWindowBox(g, in, out, [&](const WindowBox& box) {
        // The box: its output dims and origin, the kernel taps it reads and its divisor.
        Shape dims = {y[0], y[1]};
        dims.insert(dims.end(), box.extents.begin(), box.extents.end());
        const Shape& taps = box.taps;
        std::vector<int64_t> tapStrides = {in[0], in[1]}, outputStrides = {out[0], out[1]};
        tapStrides.insert(tapStrides.end(), box.tapStrides.begin(), box.tapStrides.end());
        outputStrides.insert(outputStrides.end(), box.outputStrides.begin(), box.outputStrides.end());
        const int64_t divisor = includePad ? box.paddedTaps : elementCount(taps);
        if (elementCount(taps) == 0) throw VectorUnsupported("a pooling window lying wholly in padding");
        IndexSpace space{dims, {}};
        space.add(outputStrides);
        std::vector<ViewOrigin> views;
        ops::forEachPosition(taps, [&](const std::vector<int64_t>& k) {
            int64_t offset = box.tapOrigin;
            for (size_t i = 0; i < k.size(); ++i) offset += k[i] * g.dilations[i] * in[i + 2];
            views.push_back({node.inputs[0], offset});
            space.add(tapStrides);
        });
        const auto scale = 1.0f / static_cast<float>(divisor);
        problems.push_back(stridedProblem(
            graph, opId, max ? "max_pool" : "average_pool", std::move(space), {node.outputs[0], box.outputOffset}, views,
            [max, scale](VectorBuilder& b, std::span<const Operand> in) {
                uint32_t result = *in[0].buffer;
                for (size_t t = 1; t < in.size(); ++t) {
                    result = b.binary(max ? VectorOp::Max : VectorOp::Add, result, *in[t].buffer);
                }
                return max ? (in.size() == 1 ? b.unary(VectorOp::Copy, result) : result)
                           : b.scalar(VectorOp::Mul, result, scale);
            }));
    });
    return problems;
}

}  // namespace

std::vector<VectorProblem> rowwiseProblemsFor(const Graph& graph, const Node& node, uint32_t opId) {
    const ValueId x = node.inputs.at(0);
    const Shape& shape = graph.value(x).shape;
    const auto rank = static_cast<int64_t>(shape.size());
    const std::string name(opInfo(node.kind).name);
    if (isReduction(node.kind)) {
        const std::optional<std::vector<bool>> reduced = reducedDims(graph, node);
        if (!reduced) {
            return {elementwiseProblem(graph, opId, "copy", std::span(node.inputs).first(1), node.outputs[0],
                                       [](VectorBuilder&, std::span<const Operand> in) { return *in[0].buffer; })};
        }
        const int64_t count = reducedCount(shape, *reduced);
        return {rowwiseProblem(graph, opId, name, shape, *reduced, std::span(node.inputs).first(1), node.outputs,
                               [kind = node.kind, count](VectorBuilder& b, std::span<const Operand> in) {
                                   return std::vector<uint32_t>{reduction(b, kind, *in[0].buffer, count)};
                               })};
    }
    if (node.kind == OpKind::MaxPool || node.kind == OpKind::AveragePool) {
        if (node.outputs.size() > 1) throw VectorUnsupported("MaxPool's Indices output");
        return poolProblems(graph, node, opId);
    }
    if (node.kind == OpKind::GlobalAveragePool || node.kind == OpKind::GlobalMaxPool) {
        std::vector<bool> reduced(shape.size(), true);
        reduced[0] = reduced[1] = false;
        const OpKind kind = node.kind == OpKind::GlobalMaxPool ? OpKind::ReduceMax : OpKind::ReduceMean;
        const int64_t count = reducedCount(shape, reduced);
        return {rowwiseProblem(graph, opId, name, shape, reduced, std::span(node.inputs).first(1), node.outputs,
                               [kind, count](VectorBuilder& b, std::span<const Operand> in) {
                                   return std::vector<uint32_t>{reduction(b, kind, *in[0].buffer, count)};
                               })};
    }
    if (node.kind == OpKind::Softmax || node.kind == OpKind::LogSoftmax) {
        std::vector<bool> reduced(shape.size(), false);
        reduced[static_cast<size_t>(ops::normalizeAxis(node, node.intAttr("axis", graph.opset >= 13 ? -1 : 1), rank))] = true;
        const bool log = node.kind == OpKind::LogSoftmax;
        return {rowwiseProblem(graph, opId, name, shape, reduced, std::span(node.inputs).first(1), node.outputs,
                               [log](VectorBuilder& b, std::span<const Operand> in) {
                                   const uint32_t shifted = b.binary(VectorOp::Sub, *in[0].buffer, b.reduce(VectorOp::ReduceMax, *in[0].buffer));
                                   const uint32_t e = b.unary(VectorOp::Exp, shifted);
                                   const uint32_t sum = b.reduce(VectorOp::ReduceSum, e);
                                   return std::vector<uint32_t>{log ? b.binary(VectorOp::Sub, shifted, b.unary(VectorOp::Log, sum))
                                                                    : b.binary(VectorOp::Div, e, sum)};
                               })};
    }
    if (node.kind != OpKind::RmsNormalization && node.kind != OpKind::LayerNormalization) return {};
    // Layer and RMS normalisation (the LayerNormalization after the RMS case): each row holds
    // the dims from `axis` on.
    std::vector<bool> reduced(shape.size(), false);
    for (int64_t d = ops::normalizeAxis(node, node.intAttr("axis", -1), rank); d < rank; ++d) {
        reduced[static_cast<size_t>(d)] = true;
    }
    const auto count = static_cast<float>(reducedCount(shape, reduced));
    const auto epsilon = static_cast<float>(node.floatAttr("epsilon", 1e-5f));
    if (node.kind == OpKind::RmsNormalization) {
        return {rowwiseProblem(graph, opId, name, shape, reduced, node.inputs, node.outputs,
                               [count, epsilon](VectorBuilder& b, std::span<const Operand> in) {
                                   const uint32_t x = *in[0].buffer;
                                   const uint32_t meanSquare = b.scalar(VectorOp::Mul, b.reduce(VectorOp::ReduceSum, b.binary(VectorOp::Mul, x, x)), 1.0f / count);
                                   const uint32_t inverse = b.unary(VectorOp::Rsqrt, b.scalar(VectorOp::Add, meanSquare, epsilon));
                                   return std::vector<uint32_t>{b.binary(VectorOp::Mul, b.binary(VectorOp::Mul, x, inverse), *in[1].buffer)};
                               })};
    }
    std::vector<ValueId> inputs;
    for (ValueId id : node.inputs) {
        if (id != kNoValue) inputs.push_back(id);
    }
    const size_t present = node.outputs.size();
    return {rowwiseProblem(graph, opId, name, shape, reduced, inputs, node.outputs,
                           [count, epsilon, present](VectorBuilder& b, std::span<const Operand> in) {
                               const uint32_t x = *in[0].buffer;
                               const uint32_t mean = b.scalar(VectorOp::Mul, b.reduce(VectorOp::ReduceSum, x), 1.0f / count);
                               const uint32_t centred = b.binary(VectorOp::Sub, x, mean);
                               const uint32_t variance = b.scalar(VectorOp::Mul, b.reduce(VectorOp::ReduceSum, b.binary(VectorOp::Mul, centred, centred)), 1.0f / count);
                               const uint32_t inverse = b.unary(VectorOp::Rsqrt, b.scalar(VectorOp::Add, variance, epsilon));
                               uint32_t y = b.binary(VectorOp::Mul, b.binary(VectorOp::Mul, centred, inverse), *in[1].buffer);
                               if (in.size() > 2) y = b.binary(VectorOp::Add, y, *in[2].buffer);
                               std::vector<uint32_t> results{y, mean, inverse};
                               results.resize(present);
                               return results;
                           })};
}

}  // namespace npusim::compiler
