// CPU kernels of ops over sequences: ReverseSequence.
#include "compiler/cpu/kernel_support.h"
#include "compiler/graph/op_attributes.h"
#include "compiler/graph/op_support.h"

namespace npusim::compiler::cpu {

/// Each element reads the one at the mirrored time step inside its batch entry's sequence; a
/// length outside [0, steps] stops the kernel with IndexOutOfRange.
HostKernel reverseSequence(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const ops::ReverseSequenceAxes axes = ops::reverseSequenceAxes(node);
    const auto time = static_cast<size_t>(axes.time), batch = static_cast<size_t>(axes.batch);
    const int64_t steps = shape[time];
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), lengths = k.bind(graph, node.inputs[1], false);
    const uint32_t y = k.bind(graph, node.outputs[0], true);
    b.loop(shape[batch], [&](V entry) {
        const V length = b.load(lengths, entry);
        b.when(b.binary(BinaryOp::Or, b.compare(ComparePredicate::Lt, length, b.integer(0)),
                        b.compare(ComparePredicate::Gt, length, b.integer(steps))),
               [&] { b.fail(KernelStatus::IndexOutOfRange); });
    });
    const std::vector<int64_t> strides = ops::rowMajorStrides(shape);
    forEachPosition(b, shape, [&](const std::vector<V>& p) {
        const V length = b.load(lengths, p[batch]);
        std::vector<V> from = p;
        from[time] = b.select(b.compare(ComparePredicate::Lt, p[time], length),
                              b.binary(BinaryOp::Sub, b.add(length, b.integer(-1)), p[time]), p[time]);
        b.store(y, linear(b, p, strides), b.load(x, linear(b, from, strides)));
    });
    return k.finish();
}

}  // namespace npusim::compiler::cpu
