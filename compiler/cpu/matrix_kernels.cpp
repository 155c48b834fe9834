// CPU kernels of matrix ops. Det: each matrix copied into double scratch memory and reduced by
// Gaussian elimination with partial pivoting, as the reference does; the determinant is the
// product of the pivots, negated per row swap. Einsum (what lower-einsum leaves: diagonals,
// broadcast dims, integers): a loop nest over the output's labels and, inside, the summed ones,
// summing products in double (int64 for integers).
#include "compiler/cpu/kernel_support.h"
#include "compiler/graph/einsum.h"
#include "compiler/graph/op_support.h"

namespace npusim::compiler::cpu {

HostKernel det(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const int64_t m = shape.back(), size = m * m;
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), y = k.bind(graph, node.outputs[0], true);
    const uint32_t a = b.scratch("matrix", Scalar::F64, size);
    const auto wide = [&](double value) { return b.real(value, Scalar::F64); };
    const auto at = [&](V row, V column) { return b.affine(row, m, column); };
    const auto magnitude = [&](V v) { return b.binary(BinaryOp::Max, v, b.binary(BinaryOp::Sub, wide(0), v)); };
    const auto greater = [&](V left, V right) { return b.compare(ComparePredicate::Gt, left, right); };
    b.loop(elementCount(graph.value(node.outputs[0]).shape), [&](V matrix) {
        b.loop(size, [&](V i) { b.store(a, i, b.cast(b.load(x, b.affine(matrix, size, i)), Scalar::F64)); });
        const uint32_t product = b.local(wide(1));
        b.loop(m, [&](V column) {
            const uint32_t pivot = b.local(column), largest = b.local(magnitude(b.load(a, at(column, column))));
            b.loop(m, [&](V row) {
                const V candidate = magnitude(b.load(a, at(row, column)));
                b.when(b.binary(BinaryOp::And, greater(row, column), greater(candidate, b.get(largest))), [&] {
                    b.set(pivot, row);
                    b.set(largest, candidate);
                });
            });
            b.when(b.compare(ComparePredicate::Ne, b.get(pivot), column), [&] {
                b.loop(m, [&](V j) {
                    const uint32_t held = b.local(b.load(a, at(b.get(pivot), j)));
                    b.store(a, at(b.get(pivot), j), b.load(a, at(column, j)));
                    b.store(a, at(column, j), b.get(held));
                });
                b.set(product, b.binary(BinaryOp::Sub, wide(0), b.get(product)));
            });
            const V diagonal = b.load(a, at(column, column));
            b.set(product, b.mul(b.get(product), diagonal));
            b.when(b.compare(ComparePredicate::Ne, diagonal, wide(0)), [&] {
                b.loop(m, [&](V row) {
                    b.when(greater(row, column), [&] {
                        const uint32_t factor = b.local(b.binary(BinaryOp::Div, b.load(a, at(row, column)), diagonal));
                        b.loop(m, [&](V j) {
                            b.when(b.compare(ComparePredicate::Ge, j, column), [&] {
                                b.store(a, at(row, j),
                                        b.binary(BinaryOp::Sub, b.load(a, at(row, j)), b.mul(b.get(factor), b.load(a, at(column, j)))));
                            });
                        });
                    });
                });
            });
        });
        b.store(y, matrix, b.cast(b.get(product), Scalar::F32));
    });
    return k.finish();
}

HostKernel einsum(const Graph& graph, const Node& node, Bound& k) {
    std::vector<Shape> shapes;
    for (ValueId id : node.inputs) shapes.push_back(graph.value(id).shape);
    const ops::EinsumEquation e = ops::parseEinsum(node, shapes);
    const std::string summed = e.contracted();
    Shape inner;
    for (char c : summed) inner.push_back(e.sizes.at(c));
    const Scalar type = loadedType(graph.value(node.inputs[0]).dtype);
    const Scalar wide = type == Scalar::F32 ? Scalar::F64 : Scalar::I64;
    KernelBuilder& b = k.builder;
    std::vector<uint32_t> operands;
    for (ValueId id : node.inputs) operands.push_back(k.bind(graph, id, false));
    const uint32_t y = k.bind(graph, node.outputs[0], true);
    const auto zero = [&](Scalar t) { return t == Scalar::F64 ? b.real(0, t) : b.integer(0, t); };
    forEachPosition(b, e.outputShape(), [&](const std::vector<V>& outer) {
        const uint32_t sum = b.local(zero(wide));
        forEachPosition(b, inner, [&](const std::vector<V>& within) {
            // Each operand's flat index: its dims' strides times their labels' loop variables
            // (a broadcast dim of 1 stays at 0).
            std::optional<V> product;
            for (size_t i = 0; i < operands.size(); ++i) {
                const std::vector<int64_t> strides = ops::rowMajorStrides(shapes[i]);
                V at = b.integer(0);
                for (size_t d = 0; d < shapes[i].size(); ++d) {
                    if (shapes[i][d] == 1) continue;
                    const char label = e.inputs[i][d];
                    const size_t o = e.output.find(label);
                    at = b.affine(o != std::string::npos ? outer[o] : within[summed.find(label)], strides[d], at);
                }
                const V value = b.cast(b.load(operands[i], at), wide);
                product = product ? b.mul(*product, value) : value;
            }
            b.set(sum, b.add(b.get(sum), *product));
        });
        b.store(y, linear(b, outer, ops::rowMajorStrides(e.outputShape())), b.cast(b.get(sum), type));
    });
    return k.finish();
}

}  // namespace npusim::compiler::cpu
