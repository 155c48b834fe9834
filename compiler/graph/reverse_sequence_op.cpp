// ReverseSequence: along the time axis, each batch entry's first sequence_lens[b] elements in
// reverse order, the rest as they are. The time and batch axes are 0 and 1, either way round.
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_attributes.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {

ReverseSequenceAxes reverseSequenceAxes(const Node& node) {
    const int64_t time = node.intAttr("time_axis", 0), batch = node.intAttr("batch_axis", 1);
    if ((time != 0 && time != 1) || (batch != 0 && batch != 1) || time == batch) {
        opError(node, "time_axis " + std::to_string(time) + " and batch_axis " + std::to_string(batch) +
                          " must be 0 and 1, one each");
    }
    return {time, batch};
}

void inferReverseSequence(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& lengths = graph.value(node.inputs[1]);
    const ReverseSequenceAxes axes = reverseSequenceAxes(node);
    if (x.shape.size() < 2) opError(node, "input must have rank >= 2, got " + shapeString(x.shape));
    requireDType(node, "sequence_lens", lengths.dtype, {DType::Int64});
    if (lengths.shape != Shape{x.shape[axes.batch]}) {
        opError(node, "sequence_lens must be " + shapeString({x.shape[axes.batch]}) + " (one per batch entry), got " +
                          shapeString(lengths.shape));
    }
    setOutput(graph, node, x.dtype, x.shape);
}

std::vector<Tensor> interpretReverseSequence(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const ReverseSequenceAxes axes = reverseSequenceAxes(node);
    const std::vector<int64_t> lengths = integerValues(*inputs[1]);
    const int64_t steps = x.shape[axes.time];
    for (int64_t length : lengths) {
        if (length < 0 || length > steps) {
            opError(node, "sequence length " + std::to_string(length) + " is outside [0, " + std::to_string(steps) + "]");
        }
    }
    const std::vector<int64_t> strides = rowMajorStrides(x.shape);
    std::vector<int64_t> sources;
    sources.reserve(static_cast<size_t>(x.elementCount()));
    forEachPosition(x.shape, [&](const std::vector<int64_t>& position) {
        const int64_t t = position[axes.time], length = lengths[position[axes.batch]];
        const int64_t from = t < length ? length - 1 - t : t;
        sources.push_back(static_cast<int64_t>(sources.size()) + (from - t) * strides[axes.time]);
    });
    return {takeElements(x, x.shape, sources)};
}

}  // namespace npusim::compiler::ops
