// CPU kernels of the data-dependent ops (compiler/graph/data_dependent.h): each writes its
// outputs up to the actual size, zeros past it, and the size into its size output. Loops run
// to the bounds; a flag skips the work once the result is known.
#include "compiler/cpu/kernel_support.h"
#include "compiler/graph/data_dependent.h"
#include "compiler/graph/op_support.h"

namespace npusim::compiler::cpu {
namespace {

V lt(KernelBuilder& b, V x, V y) { return b.compare(ComparePredicate::Lt, x, y); }
V ge(KernelBuilder& b, V x, V y) { return b.compare(ComparePredicate::Ge, x, y); }
V allOf(KernelBuilder& b, V x, V y) { return b.binary(BinaryOp::And, x, y); }
V anyOf(KernelBuilder& b, V x, V y) { return b.binary(BinaryOp::Or, x, y); }
V no(KernelBuilder& b, V x) { return b.compare(ComparePredicate::Eq, x, b.integer(0, Scalar::I1)); }

void increment(KernelBuilder& b, uint32_t local) { b.set(local, b.add(b.get(local), b.integer(1))); }

/// A tensor viewed as slices along an axis: element (o, s, n) of [outer, size, inner].
struct Slices {
    uint32_t buffer = 0;
    int64_t size = 1;
    AxisView view;
    V at(KernelBuilder& b, V slice, V o, V n) const { return b.affine(b.affine(o, size, slice), view.inner, n); }
};

/// Whether slice `a` of `x` equals slice `b` of `y` (both [outer, *, inner]).
V slicesEqual(KernelBuilder& b, const Slices& x, V a, const Slices& y, V c) {
    const uint32_t equal = b.local(b.integer(1, Scalar::I1));
    b.loop(x.view.outer, [&](V o) {
        b.loop(x.view.inner, [&](V n) {
            b.when(b.compare(ComparePredicate::Ne, b.load(x.buffer, x.at(b, a, o, n)), b.load(y.buffer, y.at(b, c, o, n))),
                   [&] { b.set(equal, b.integer(0, Scalar::I1)); });
        });
    });
    return b.get(equal);
}

/// Whether slice `a` orders before slice `c` of `x`, comparing elements in row-major order.
V sliceBefore(KernelBuilder& b, const Slices& x, V a, V c) {
    const uint32_t decided = b.local(b.integer(0, Scalar::I1)), before = b.local(b.integer(0, Scalar::I1));
    b.loop(x.view.outer, [&](V o) {
        b.loop(x.view.inner, [&](V n) {
            const V p = b.load(x.buffer, x.at(b, a, o, n)), q = b.load(x.buffer, x.at(b, c, o, n));
            b.when(allOf(b, no(b, b.get(decided)), b.compare(ComparePredicate::Ne, p, q)), [&] {
                b.set(decided, b.integer(1, Scalar::I1));
                b.set(before, lt(b, p, q));
            });
        });
    });
    return b.get(before);
}

/// Swaps element `i` and `j` of a buffer.
void swapElements(KernelBuilder& b, uint32_t buffer, V i, V j) {
    const uint32_t held = b.local(b.load(buffer, i));
    b.store(buffer, i, b.load(buffer, j));
    b.store(buffer, j, b.get(held));
}

HostKernel nonZero(const Graph& graph, const Node& node, Bound& k) {
    KernelBuilder& b = k.builder;
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const int64_t bound = graph.value(node.outputs[0]).shape[1];
    const uint32_t x = k.bind(graph, node.inputs[0], false);
    const uint32_t y = k.bind(graph, node.outputs[0], true), size = k.bind(graph, node.outputs[1], true);
    const uint32_t count = b.local(b.integer(0));
    const Scalar type = loadedType(graph.value(node.inputs[0]).dtype);
    forEachPosition(b, shape, [&](const std::vector<V>& position) {
        const V element = b.load(x, linear(b, position, ops::rowMajorStrides(shape)));
        b.when(b.compare(ComparePredicate::Ne, element, zeroOf(b, type)), [&] {
            for (size_t d = 0; d < position.size(); ++d) b.store(y, b.affine(b.integer(static_cast<int64_t>(d)), bound, b.get(count)), position[d]);
            increment(b, count);
        });
    });
    b.loop(bound, [&](V i) {
        b.when(ge(b, i, b.get(count)), [&] {
            for (size_t d = 0; d < shape.size(); ++d) b.store(y, b.affine(b.integer(static_cast<int64_t>(d)), bound, i), b.integer(0));
        });
    });
    b.store(size, b.integer(0), b.get(count));
    return k.finish();
}

HostKernel compress(const Graph& graph, const Node& node, Bound& k) {
    KernelBuilder& b = k.builder;
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const DataDependentSize padded = *dataDependentSize(graph, node);
    const int64_t axis = padded.dims[0].second;
    const bool flattened = !node.attributes.contains("axis");
    const AxisView view = flattened ? AxisView{1, elementCount(shape), 1} : axisView(shape, axis);
    const int64_t bound = graph.value(node.outputs[0]).shape[static_cast<size_t>(axis)];
    const uint32_t x = k.bind(graph, node.inputs[0], false), condition = k.bind(graph, node.inputs[1], false);
    const uint32_t y = k.bind(graph, node.outputs[0], true), size = k.bind(graph, node.outputs[1], true);
    const Slices in{x, view.size, view}, out{y, bound, view};
    const uint32_t count = b.local(b.integer(0));
    b.loop(bound, [&](V s) {
        b.when(b.load(condition, s), [&] {
            b.loop(view.outer, [&](V o) {
                b.loop(view.inner, [&](V n) { b.store(y, out.at(b, b.get(count), o, n), b.load(x, in.at(b, s, o, n))); });
            });
            increment(b, count);
        });
    });
    const Scalar type = loadedType(graph.value(node.inputs[0]).dtype);
    b.loop(view.outer, [&](V o) {
        b.loop(bound, [&](V s) {
            b.when(ge(b, s, b.get(count)), [&] { b.loop(view.inner, [&](V n) { b.store(y, out.at(b, s, o, n), zeroOf(b, type)); }); });
        });
    });
    b.store(size, b.integer(0), b.get(count));
    return k.finish();
}

HostKernel unique(const Graph& graph, const Node& node, Bound& k) {
    KernelBuilder& b = k.builder;
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const bool flattened = !node.attributes.contains("axis");
    const AxisView view = flattened ? AxisView{1, elementCount(shape), 1} : axisView(shape, dataDependentSize(graph, node)->dims[0].second);
    const int64_t slices = view.size;
    const uint32_t x = k.bind(graph, node.inputs[0], false);
    const uint32_t y = k.bind(graph, node.outputs[0], true), indices = k.bind(graph, node.outputs[1], true);
    const uint32_t inverse = k.bind(graph, node.outputs[2], true), counts = k.bind(graph, node.outputs[3], true);
    const uint32_t size = k.bind(graph, node.outputs[4], true);
    const Slices in{x, slices, view}, out{y, slices, view};
    const uint32_t count = b.local(b.integer(0));
    // Distinct slices in order of first occurrence, counted.
    b.loop(slices, [&](V s) {
        const uint32_t found = b.local(b.integer(-1));
        b.loop(slices, [&](V u) {
            b.when(allOf(b, lt(b, u, b.get(count)), lt(b, b.get(found), b.integer(0))), [&] {
                b.when(slicesEqual(b, out, u, in, s), [&] { b.set(found, u); });
            });
        });
        b.when(ge(b, b.get(found), b.integer(0)), [&] {
            b.store(counts, b.get(found), b.add(b.load(counts, b.get(found)), b.integer(1)));
            b.store(inverse, s, b.get(found));
        });
        b.when(lt(b, b.get(found), b.integer(0)), [&] {
            b.loop(view.outer, [&](V o) { b.loop(view.inner, [&](V n) { b.store(y, out.at(b, b.get(count), o, n), b.load(x, in.at(b, s, o, n))); }); });
            b.store(indices, b.get(count), s);
            b.store(counts, b.get(count), b.integer(1));
            b.store(inverse, s, b.get(count));
            increment(b, count);
        });
    });
    if (node.intAttr("sorted", 1) != 0) {
        // Selection sort of the distinct slices (with their indices and counts), then each
        // element's position among them again.
        b.loop(slices, [&](V p) {
            b.when(lt(b, p, b.get(count)), [&] {
                const uint32_t least = b.local(p);
                b.loop(slices, [&](V q) {
                    b.when(allOf(b, lt(b, p, q), lt(b, q, b.get(count))), [&] {
                        b.when(sliceBefore(b, out, q, b.get(least)), [&] { b.set(least, q); });
                    });
                });
                b.when(b.compare(ComparePredicate::Ne, b.get(least), p), [&] {
                    b.loop(view.outer, [&](V o) { b.loop(view.inner, [&](V n) { swapElements(b, y, out.at(b, p, o, n), out.at(b, b.get(least), o, n)); }); });
                    swapElements(b, indices, p, b.get(least));
                    swapElements(b, counts, p, b.get(least));
                });
            });
        });
        b.loop(slices, [&](V s) {
            b.loop(slices, [&](V u) {
                b.when(lt(b, u, b.get(count)), [&] { b.when(slicesEqual(b, out, u, in, s), [&] { b.store(inverse, s, u); }); });
            });
        });
    }
    const Scalar type = loadedType(graph.value(node.inputs[0]).dtype);
    b.loop(slices, [&](V s) {
        b.when(ge(b, s, b.get(count)), [&] {
            b.loop(view.outer, [&](V o) { b.loop(view.inner, [&](V n) { b.store(y, out.at(b, s, o, n), zeroOf(b, type)); }); });
            b.store(indices, s, b.integer(0));
            b.store(counts, s, b.integer(0));
        });
    });
    b.store(size, b.integer(0), b.get(count));
    return k.finish();
}

/// The corners (y1, x1, y2, x2, ordered) of box `box` at `base` of the boxes buffer.
std::array<V, 4> corners(KernelBuilder& b, uint32_t boxes, V base, bool centerPoint) {
    std::array<V, 4> c;
    for (int i = 0; i < 4; ++i) c[static_cast<size_t>(i)] = b.load(boxes, b.add(base, b.integer(i)));
    if (centerPoint) {  // [x_center, y_center, width, height]
        const V half = b.real(0.5);
        const V halfWidth = b.mul(c[2], half), halfHeight = b.mul(c[3], half);
        return {b.binary(BinaryOp::Sub, c[1], halfHeight), b.binary(BinaryOp::Sub, c[0], halfWidth), b.add(c[1], halfHeight),
                b.add(c[0], halfWidth)};
    }
    return {b.binary(BinaryOp::Min, c[0], c[2]), b.binary(BinaryOp::Min, c[1], c[3]), b.binary(BinaryOp::Max, c[0], c[2]),
            b.binary(BinaryOp::Max, c[1], c[3])};
}

/// Whether boxes p and q overlap by more than `threshold` (IoU in fp32); a box without area
/// suppresses nothing.
V overlapsMoreThan(KernelBuilder& b, const std::array<V, 4>& p, const std::array<V, 4>& q, V threshold) {
    const auto sub = [&](V x, V y) { return b.binary(BinaryOp::Sub, x, y); };
    const V zero = b.real(0);
    const V areaP = b.mul(sub(p[2], p[0]), sub(p[3], p[1])), areaQ = b.mul(sub(q[2], q[0]), sub(q[3], q[1]));
    const V height = b.binary(BinaryOp::Max, zero, sub(b.binary(BinaryOp::Min, p[2], q[2]), b.binary(BinaryOp::Max, p[0], q[0])));
    const V width = b.binary(BinaryOp::Max, zero, sub(b.binary(BinaryOp::Min, p[3], q[3]), b.binary(BinaryOp::Max, p[1], q[1])));
    const V intersection = b.mul(height, width);
    const V iou = b.binary(BinaryOp::Div, intersection, sub(b.add(areaP, areaQ), intersection));
    const V hasArea = allOf(b, b.compare(ComparePredicate::Gt, areaP, zero), b.compare(ComparePredicate::Gt, areaQ, zero));
    return allOf(b, hasArea, b.compare(ComparePredicate::Gt, iou, threshold));
}

HostKernel nonMaxSuppression(const Graph& graph, const Node& node, Bound& k) {
    KernelBuilder& b = k.builder;
    const Shape& scoresShape = graph.value(node.inputs[1]).shape;
    const int64_t batches = scoresShape[0], classes = scoresShape[1], boxCount = scoresShape[2];
    const bool centerPoint = node.intAttr("center_point_box", 0) != 0;
    const uint32_t boxes = k.bind(graph, node.inputs[0], false), scores = k.bind(graph, node.inputs[1], false);
    const auto optional = [&](size_t i) -> std::optional<uint32_t> {
        if (i >= node.inputs.size() || node.inputs[i] == kNoValue) return std::nullopt;
        return k.bind(graph, node.inputs[i], false);
    };
    const std::optional<uint32_t> maxInput = optional(2), iouInput = optional(3), scoreInput = optional(4);
    const uint32_t out = k.bind(graph, node.outputs[0], true), size = k.bind(graph, node.outputs[1], true);
    const int64_t bound = graph.value(node.outputs[0]).shape[0];
    const V keep = maxInput ? b.binary(BinaryOp::Max, b.load(*maxInput, b.integer(0)), b.integer(0)) : b.integer(0);
    const V iouThreshold = iouInput ? b.load(*iouInput, b.integer(0)) : b.real(0);
    const uint32_t total = b.local(b.integer(0));
    b.loop(batches, [&](V batch) {
        b.loop(classes, [&](V cls) {
            const V scoreBase = b.affine(b.affine(batch, classes, cls), boxCount, b.integer(0));
            const uint32_t first = b.local(b.get(total)), kept = b.local(b.integer(0));
            const uint32_t previous = b.local(b.real(0)), previousIndex = b.local(b.integer(-1));
            const uint32_t done = b.local(b.integer(0, Scalar::I1));
            // Round t takes the candidate after round t-1's in the order of score (higher first),
            // then index (lower first).
            b.loop(boxCount, [&](V) {
                b.when(no(b, b.get(done)), [&] {
                    const uint32_t best = b.local(b.real(0)), bestIndex = b.local(b.integer(-1));
                    b.loop(boxCount, [&](V j) {
                        const V score = b.load(scores, b.add(scoreBase, j));
                        const V after = anyOf(b, lt(b, b.get(previousIndex), b.integer(0)),
                                              anyOf(b, lt(b, score, b.get(previous)),
                                                    allOf(b, b.compare(ComparePredicate::Eq, score, b.get(previous)),
                                                          b.compare(ComparePredicate::Gt, j, b.get(previousIndex)))));
                        const V better = anyOf(b, lt(b, b.get(bestIndex), b.integer(0)), b.compare(ComparePredicate::Gt, score, b.get(best)));
                        b.when(allOf(b, after, better), [&] {
                            b.set(best, score);
                            b.set(bestIndex, j);
                        });
                    });
                    b.set(previous, b.get(best));
                    b.set(previousIndex, b.get(bestIndex));
                    // Candidates come by falling score: below the threshold, or with the class full, it is over.
                    V over = ge(b, b.get(kept), keep);
                    if (scoreInput) over = anyOf(b, over, b.compare(ComparePredicate::Le, b.get(best), b.load(*scoreInput, b.integer(0))));
                    b.when(over, [&] { b.set(done, b.integer(1, Scalar::I1)); });
                    b.when(no(b, b.get(done)), [&] {
                        const V boxBase = b.affine(batch, boxCount * 4, b.integer(0));
                        const std::array<V, 4> candidate = corners(b, boxes, b.affine(b.get(bestIndex), 4, boxBase), centerPoint);
                        const uint32_t suppressed = b.local(b.integer(0, Scalar::I1));
                        b.loop(boxCount, [&](V r) {
                            b.when(lt(b, r, b.get(kept)), [&] {
                                const V keptBox = b.load(out, b.affine(b.add(b.get(first), r), 3, b.integer(2)));
                                const std::array<V, 4> other = corners(b, boxes, b.affine(keptBox, 4, boxBase), centerPoint);
                                b.when(overlapsMoreThan(b, other, candidate, iouThreshold), [&] { b.set(suppressed, b.integer(1, Scalar::I1)); });
                            });
                        });
                        b.when(no(b, b.get(suppressed)), [&] {
                            const V row = b.affine(b.get(total), 3, b.integer(0));
                            b.store(out, row, batch);
                            b.store(out, b.add(row, b.integer(1)), cls);
                            b.store(out, b.add(row, b.integer(2)), b.get(bestIndex));
                            increment(b, total);
                            increment(b, kept);
                        });
                    });
                });
            });
        });
    });
    b.loop(bound * 3, [&](V i) {
        b.when(ge(b, i, b.affine(b.get(total), 3, b.integer(0))), [&] { b.store(out, i, b.integer(0)); });
    });
    b.store(size, b.integer(0), b.get(total));
    return k.finish();
}

}  // namespace

std::optional<HostKernel> dataDependentKernel(const Graph& graph, const Node& node, Bound& k) {
    switch (node.kind) {
        case OpKind::NonZero: return nonZero(graph, node, k);
        case OpKind::Compress: return compress(graph, node, k);
        case OpKind::Unique: return unique(graph, node, k);
        case OpKind::NonMaxSuppression: return nonMaxSuppression(graph, node, k);
        default: return std::nullopt;
    }
}

}  // namespace npusim::compiler::cpu
