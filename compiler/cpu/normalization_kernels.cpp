// The CPU kernel of LRN: per element, the sum of squares over the channel window in double,
// then x * exp(-beta * ln(bias + alpha / size * sum)) rounded once.
#include "compiler/cpu/kernel_support.h"
#include "compiler/graph/op_attributes.h"

namespace npusim::compiler::cpu {

HostKernel lrn(const Graph& graph, const Node& node, Bound& k) {
    const AxisView v = axisView(graph.value(node.inputs[0]).shape, 1);
    const ops::LrnParameters p = ops::lrnParameters(node);
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), y = k.bind(graph, node.outputs[0], true);
    const auto wide = [&](double value) { return b.real(value, Scalar::F64); };
    b.loop(v.outer, [&](V o) {
        b.loop(v.size, [&](V c) {
            b.loop(v.inner, [&](V n) {
                const uint32_t squares = b.local(wide(0));
                b.loop(p.size, [&](V j) {
                    const V channel = b.add(c, b.add(j, b.integer(-(p.size - 1) / 2)));
                    const V inside = b.binary(BinaryOp::And, b.compare(ComparePredicate::Ge, channel, b.integer(0)),
                                              b.compare(ComparePredicate::Lt, channel, b.integer(v.size)));
                    b.when(inside, [&] {
                        const V value = b.cast(b.load(x, b.affine(b.affine(o, v.size, channel), v.inner, n)), Scalar::F64);
                        b.set(squares, b.add(b.get(squares), b.mul(value, value)));
                    });
                });
                const V base = b.add(wide(p.bias), b.mul(wide(p.alpha / static_cast<double>(p.size)), b.get(squares)));
                const V scale = b.math(MathFn::Exp, b.mul(wide(-p.beta), b.math(MathFn::Log, base)));
                const V index = b.affine(b.affine(o, v.size, c), v.inner, n);
                b.store(y, index, b.cast(b.mul(b.cast(b.load(x, index), Scalar::F64), scale), Scalar::F32));
            });
        });
    });
    return k.finish();
}

}  // namespace npusim::compiler::cpu
