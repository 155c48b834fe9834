// CPU kernels of ops over sequences: ReverseSequence and TfIdfVectorizer.
#include <algorithm>
#include <limits>

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

/// The pool is unrolled into the kernel: per row, skip distance and n-gram, a loop over the start
/// positions compares the items with the n-gram's constants and counts matches in its column;
/// IDF and TFIDF then weigh each column.
HostKernel tfIdfVectorizer(const Graph& graph, const Node& node, Bound& k) {
    const Value& input = graph.value(node.inputs[0]);
    const ops::TfIdfPool pool = ops::tfIdfPool(node);
    const int64_t rows = input.shape.size() == 1 ? 1 : input.shape[0], length = input.shape.back();
    const Scalar type = loadedType(input.dtype);
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), y = k.bind(graph, node.outputs[0], true);
    // An item an int32 row cannot hold matches nothing there.
    const auto holds = [&](const ops::TfIdfPool::Ngram& g) {
        return type == Scalar::I64 || std::all_of(g.items.begin(), g.items.end(), [](int64_t item) {
                   return item >= std::numeric_limits<int32_t>::min() && item <= std::numeric_limits<int32_t>::max();
               });
    };
    b.loop(rows, [&](V r) {
        const V row = b.mul(r, b.integer(length));
        const auto cell = [&](int64_t column) { return b.affine(r, pool.columns, b.integer(column)); };
        b.loop(pool.columns, [&](V c) { b.store(y, b.affine(r, pool.columns, c), b.real(0)); });
        for (int64_t d = 1; d <= pool.maxSkip + 1; ++d) {
            for (const ops::TfIdfPool::Ngram& g : pool.ngrams) {
                const int64_t span = (static_cast<int64_t>(g.items.size()) - 1) * d;
                if ((d > 1 && g.items.size() == 1) || span >= length || !holds(g)) continue;
                b.loop(length - span, [&](V i) {
                    V match = b.compare(ComparePredicate::Eq, b.load(x, b.add(row, i)), b.integer(g.items[0], type));
                    for (size_t j = 1; j < g.items.size(); ++j) {
                        const V item = b.load(x, b.add(row, b.add(i, b.integer(static_cast<int64_t>(j) * d))));
                        match = b.binary(BinaryOp::And, match, b.compare(ComparePredicate::Eq, item, b.integer(g.items[j], type)));
                    }
                    b.when(match, [&] { b.store(y, cell(g.column), b.add(b.load(y, cell(g.column)), b.real(1))); });
                });
            }
        }
        if (pool.mode == ops::TfIdfPool::Mode::TermFrequency) return;
        for (int64_t c = 0; c < pool.columns; ++c) {
            const double weight = pool.weights.empty() ? 1.0 : pool.weights[static_cast<size_t>(c)];
            const V count = b.load(y, cell(c));
            b.store(y, cell(c),
                    pool.mode == ops::TfIdfPool::Mode::Both
                        ? b.mul(count, b.real(weight))
                        : b.select(b.compare(ComparePredicate::Gt, count, b.real(0)), b.real(weight), b.real(0)));
        }
    });
    return k.finish();
}

}  // namespace npusim::compiler::cpu
