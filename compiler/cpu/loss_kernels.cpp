// The CPU kernel of NegativeLogLikelihoodLoss (SoftmaxCrossEntropyLoss reaches it split into a
// LogSoftmax on the NPU and this loss): each element's loss and weight in double, in input
// order, summed in registers for the reductions.
#include "compiler/cpu/kernel_support.h"
#include "compiler/graph/loss.h"

namespace npusim::compiler::cpu {

HostKernel negativeLogLikelihoodLoss(const Graph& graph, const Node& node, Bound& k) {
    const ops::LossGeometry g = ops::lossGeometry(graph, node);
    const std::optional<int64_t> ignored = ops::ignoreIndex(node);
    KernelBuilder& b = k.builder;
    const uint32_t input = k.bind(graph, node.inputs[0], false), target = k.bind(graph, node.inputs[1], false);
    const bool weighted = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
    const uint32_t weight = weighted ? k.bind(graph, node.inputs[2], false) : 0;
    const uint32_t loss = k.bind(graph, node.outputs[0], true);
    const uint32_t total = b.local(b.real(0, Scalar::F64)), weightSum = b.local(b.real(0, Scalar::F64));
    b.loop(g.batch, [&](V n) {
        b.loop(g.positions, [&](V d) {
            const V i = b.affine(n, g.positions, d);
            const V t = b.cast(b.load(target, i), Scalar::I64);
            const auto lose = [&] {
                b.when(b.binary(BinaryOp::Or, b.compare(ComparePredicate::Lt, t, b.integer(0)),
                                b.compare(ComparePredicate::Ge, t, b.integer(g.classes))),
                       [&] { b.fail(KernelStatus::IndexOutOfRange); });
                const V w = weighted ? b.cast(b.load(weight, t), Scalar::F64) : b.real(1, Scalar::F64);
                const V x = b.cast(b.load(input, b.affine(b.affine(n, g.classes, t), g.positions, d)), Scalar::F64);
                const V value = b.mul(b.binary(BinaryOp::Sub, b.real(0, Scalar::F64), x), w);
                if (g.reduction == ops::LossReduction::None) {
                    b.store(loss, i, b.cast(value, Scalar::F32));
                } else {
                    b.set(total, b.add(b.get(total), value));
                    b.set(weightSum, b.add(b.get(weightSum), w));
                }
            };
            if (!ignored) {
                lose();
                return;
            }
            if (g.reduction == ops::LossReduction::None) b.store(loss, i, b.real(0));
            b.when(b.compare(ComparePredicate::Ne, t, b.integer(*ignored)), lose);
        });
    });
    if (g.reduction == ops::LossReduction::Sum) b.store(loss, b.integer(0), b.cast(b.get(total), Scalar::F32));
    if (g.reduction == ops::LossReduction::Mean) {
        b.store(loss, b.integer(0), b.cast(b.binary(BinaryOp::Div, b.get(total), b.get(weightSum)), Scalar::F32));
    }
    return k.finish();
}

}  // namespace npusim::compiler::cpu
