// The shared pieces of CPU kernels.
#include "compiler/cpu/kernel_support.h"

#include "compiler/graph/op_support.h"

namespace npusim::compiler::cpu {

AxisView axisView(const Shape& shape, int64_t axis) {
    AxisView view;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
        if (d < axis) view.outer *= shape[d];
        if (d == axis) view.size = shape[d];
        if (d > axis) view.inner *= shape[d];
    }
    return view;
}

void forEachPosition(KernelBuilder& b, const Shape& shape, const std::function<void(const std::vector<V>&)>& body) {
    std::vector<V> position;
    std::function<void(size_t)> nest = [&](size_t dim) {
        if (dim == shape.size()) {
            body(position);
            return;
        }
        b.loop(shape[dim], [&](V index) {
            position.push_back(index);
            nest(dim + 1);
            position.pop_back();
        });
    };
    nest(0);
}

V linear(KernelBuilder& b, const std::vector<V>& position, const std::vector<int64_t>& strides) {
    V index = b.integer(0);
    for (size_t d = 0; d < position.size(); ++d) {
        if (strides[d] != 0) index = b.affine(position[d], strides[d], index);
    }
    return index;
}

V checkedIndex(KernelBuilder& b, V raw, int64_t size) {
    const V index = b.cast(raw, Scalar::I64);
    b.when(b.binary(BinaryOp::Or, b.compare(ComparePredicate::Lt, index, b.integer(-size)),
                    b.compare(ComparePredicate::Ge, index, b.integer(size))),
           [&] { b.fail(KernelStatus::IndexOutOfRange); });
    return b.select(b.compare(ComparePredicate::Lt, index, b.integer(0)), b.add(index, b.integer(size)), index);
}

V zeroOf(KernelBuilder& b, Scalar type) { return type == Scalar::F32 ? b.real(0) : b.integer(0, type); }

uint32_t Bound::bind(const Graph& graph, ValueId id, bool output) {
    const Value& value = graph.value(id);
    (output ? result.outputs : result.inputs).push_back(id);
    return builder.buffer(value.name, value.dtype, elementCount(value.shape), output);
}

HostKernel Bound::finish() {
    result.kernel = builder.finish();
    return std::move(result);
}

BroadcastOperands bindBroadcast(const Graph& graph, const Node& node, Bound& k, const Shape& shape) {
    BroadcastOperands operands;
    for (ValueId input : node.inputs) {
        operands.buffers.push_back(k.bind(graph, input, false));
        operands.strides.push_back(ops::broadcastStrides(graph.value(input).shape, shape.size()));
    }
    return operands;
}

}  // namespace npusim::compiler::cpu
