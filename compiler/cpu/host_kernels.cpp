// One loop nest per op, written against the kernel builder (kernel_support.h has the pieces
// they share), and hostKernelFor, which picks the kernel of an op.
#include "compiler/cpu/host_kernels.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>

#include "compiler/cpu/kernel_support.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::cpu {
namespace {

bool allKernelTypes(const Graph& graph, const Node& node) {
    for (const std::vector<ValueId>* list : {&node.inputs, &node.outputs}) {
        for (ValueId id : *list) {
            if (id != kNoValue && !kernelDType(graph.value(id).dtype)) return false;
        }
    }
    return true;
}

HostKernel cumSum(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const int64_t axis = ops::normalizeAxis(node, ops::constantInts(graph, node, 1, "axis").at(0),
                                            static_cast<int64_t>(shape.size()));
    const bool exclusive = node.intAttr("exclusive", 0) != 0, reverse = node.intAttr("reverse", 0) != 0;
    const AxisView v = axisView(shape, axis);
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), y = k.bind(graph, node.outputs[0], true);
    const Scalar type = loadedType(graph.value(node.inputs[0]).dtype);
    b.loop(v.outer, [&](V o) {
        b.loop(v.inner, [&](V n) {
            const uint32_t total = b.local(zeroOf(b, type));
            b.loop(v.size, [&](V step) {
                const V s = reverse ? b.affine(step, -1, b.integer(v.size - 1)) : step;
                const V index = b.affine(b.affine(o, v.size, s), v.inner, n);
                if (exclusive) b.store(y, index, b.get(total));
                b.set(total, b.add(b.get(total), b.load(x, index)));
                if (!exclusive) b.store(y, index, b.get(total));
            });
        });
    });
    return k.finish();
}

/// A local holding the position along the axis of line (o, n)'s first (last: its last)
/// largest (or smallest) element of buffer x.
uint32_t extremeIndex(KernelBuilder& b, uint32_t x, const AxisView& v, V o, V n, bool largest, bool last) {
    const uint32_t best = b.local(b.load(x, b.affine(o, v.size * v.inner, n)));
    const uint32_t bestIndex = b.local(b.integer(0));
    b.loop(v.size - 1, [&](V step) {
        const V s = b.add(step, b.integer(1));
        const V candidate = b.load(x, b.affine(b.affine(o, v.size, s), v.inner, n));
        V better = b.compare(largest ? ComparePredicate::Gt : ComparePredicate::Lt, candidate, b.get(best));
        if (last) better = b.binary(BinaryOp::Or, better, b.compare(ComparePredicate::Eq, candidate, b.get(best)));
        b.when(better, [&] {
            b.set(best, candidate);
            b.set(bestIndex, s);
        });
    });
    return bestIndex;
}

HostKernel argExtreme(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const int64_t axis = ops::normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(shape.size()));
    const bool largest = node.kind == OpKind::ArgMax, last = node.intAttr("select_last_index", 0) != 0;
    const AxisView v = axisView(shape, axis);
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), y = k.bind(graph, node.outputs[0], true);
    b.loop(v.outer, [&](V o) {
        b.loop(v.inner, [&](V n) {
            b.store(y, b.affine(o, v.inner, n), b.get(extremeIndex(b, x, v, o, n, largest, last)));
        });
    });
    return k.finish();
}

/// 1 at each line's first largest element, 0 elsewhere.
HostKernel hardmax(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const AxisView v = axisView(shape, ops::normalizeAxis(node, node.intAttr("axis", -1), static_cast<int64_t>(shape.size())));
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), y = k.bind(graph, node.outputs[0], true);
    b.loop(v.outer, [&](V o) {
        b.loop(v.inner, [&](V n) {
            const uint32_t first = extremeIndex(b, x, v, o, n, true, false);
            b.loop(v.size, [&](V s) {
                b.store(y, b.affine(b.affine(o, v.size, s), v.inner, n),
                        b.select(b.compare(ComparePredicate::Eq, s, b.get(first)), b.real(1), b.real(0)));
            });
        });
    });
    return k.finish();
}

/// k rounds of selection: round t picks the most extreme element that comes after round
/// t-1's pick in the output order (more extreme first, then lower index first). O(k * size)
/// operations per line, no scratch memory.
HostKernel topK(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const int64_t axis = ops::normalizeAxis(node, node.intAttr("axis", -1), static_cast<int64_t>(shape.size()));
    const int64_t count = ops::constantInts(graph, node, 1, "K").at(0);
    const bool largest = node.intAttr("largest", 1) != 0;
    const ComparePredicate moreExtreme = largest ? ComparePredicate::Gt : ComparePredicate::Lt;
    const ComparePredicate lessExtreme = largest ? ComparePredicate::Lt : ComparePredicate::Gt;
    const AxisView v = axisView(shape, axis);
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false);
    const uint32_t values = k.bind(graph, node.outputs[0], true), indices = k.bind(graph, node.outputs[1], true);
    const Scalar type = loadedType(graph.value(node.inputs[0]).dtype);
    b.loop(v.outer, [&](V o) {
        b.loop(v.inner, [&](V n) {
            const uint32_t previous = b.local(zeroOf(b, type)), previousIndex = b.local(b.integer(-1));
            b.loop(count, [&](V t) {
                const uint32_t best = b.local(zeroOf(b, type)), bestIndex = b.local(b.integer(-1));
                b.loop(v.size, [&](V j) {
                    const V element = b.load(x, b.affine(b.affine(o, v.size, j), v.inner, n));
                    const V after = b.binary(
                        BinaryOp::Or, b.compare(lessExtreme, element, b.get(previous)),
                        b.binary(BinaryOp::And, b.compare(ComparePredicate::Eq, element, b.get(previous)),
                                 b.compare(ComparePredicate::Gt, j, b.get(previousIndex))));
                    const V eligible = b.binary(BinaryOp::Or, b.compare(ComparePredicate::Lt, b.get(previousIndex), b.integer(0)), after);
                    const V better = b.binary(BinaryOp::Or, b.compare(ComparePredicate::Lt, b.get(bestIndex), b.integer(0)),
                                              b.compare(moreExtreme, element, b.get(best)));
                    b.when(b.binary(BinaryOp::And, eligible, better), [&] {
                        b.set(best, element);
                        b.set(bestIndex, j);
                    });
                });
                const V place = b.affine(b.affine(o, count, t), v.inner, n);
                b.store(values, place, b.get(best));
                b.store(indices, place, b.get(bestIndex));
                b.set(previous, b.get(best));
                b.set(previousIndex, b.get(bestIndex));
            });
        });
    });
    return k.finish();
}

HostKernel where(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.outputs[0]).shape;
    KernelBuilder& b = k.builder;
    const auto [operands, strides] = bindBroadcast(graph, node, k, shape);
    const uint32_t out = k.bind(graph, node.outputs[0], true);
    const std::vector<int64_t> outStrides = ops::rowMajorStrides(shape);
    forEachPosition(b, shape, [&](const std::vector<V>& p) {
        const V condition = b.load(operands[0], linear(b, p, strides[0]));
        b.store(out, linear(b, p, outStrides),
                b.select(condition, b.load(operands[1], linear(b, p, strides[1])), b.load(operands[2], linear(b, p, strides[2]))));
    });
    return k.finish();
}

/// `combine(x, y)` of the node's two inputs over their broadcast, into its output.
HostKernel broadcastBinary(const Graph& graph, const Node& node, Bound& k, const std::function<V(V, V)>& combine) {
    const Shape& shape = graph.value(node.outputs[0]).shape;
    KernelBuilder& b = k.builder;
    const auto [operands, strides] = bindBroadcast(graph, node, k, shape);
    const uint32_t out = k.bind(graph, node.outputs[0], true);
    const std::vector<int64_t> outStrides = ops::rowMajorStrides(shape);
    forEachPosition(b, shape, [&](const std::vector<V>& p) {
        b.store(out, linear(b, p, outStrides),
                combine(b.load(operands[0], linear(b, p, strides[0])), b.load(operands[1], linear(b, p, strides[1]))));
    });
    return k.finish();
}

/// Mod over the broadcast of its inputs: frem (C's fmod) for floats; for integers the
/// remainder of truncating division, moved to the divisor's sign unless fmod = 1, and 0 for a
/// divisor of 0 or -1 (where the hardware remainder is undefined).
HostKernel mod(const Graph& graph, const Node& node, Bound& k) {
    const bool fmod = node.intAttr("fmod", 0) == 1;
    const Scalar type = loadedType(graph.value(node.inputs[0]).dtype);
    KernelBuilder& b = k.builder;
    return broadcastBinary(graph, node, k, [&](V x, V y) {
        if (type == Scalar::F32) return b.binary(BinaryOp::Rem, x, y);
        const V zero = b.integer(0, type);
        const V undefined = b.binary(BinaryOp::Or, b.compare(ComparePredicate::Eq, y, zero),
                                     b.compare(ComparePredicate::Eq, y, b.integer(-1, type)));
        V r = b.binary(BinaryOp::Rem, x, b.select(undefined, b.integer(1, type), y));
        if (!fmod) {
            const V signsDiffer = b.binary(BinaryOp::And, b.compare(ComparePredicate::Ne, r, zero),
                                           b.compare(ComparePredicate::Ne, b.compare(ComparePredicate::Lt, r, zero),
                                                     b.compare(ComparePredicate::Lt, y, zero)));
            r = b.select(signsDiffer, b.add(r, y), r);
        }
        return r;
    });
}

/// BitShift of uint8 (loaded as int32): shifts by 8 or more give 0; the store keeps the low 8
/// bits of a left shift.
HostKernel bitShift(const Graph& graph, const Node& node, Bound& k) {
    const bool left = ops::stringAttr(node, "direction", "") == "LEFT";
    KernelBuilder& b = k.builder;
    return broadcastBinary(graph, node, k, [&](V x, V amount) {
        const V shifted = b.binary(left ? BinaryOp::Shl : BinaryOp::Shr, x, amount);
        return b.select(b.compare(ComparePredicate::Lt, amount, b.integer(8, Scalar::I32)), shifted, b.integer(0, Scalar::I32));
    });
}

/// The elementwise math the vector unit lacks (math_ops.cpp), element by element.
HostKernel elementwiseMath(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const Scalar type = loadedType(graph.value(node.inputs[0]).dtype);
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), y = k.bind(graph, node.outputs[0], true);
    const auto constant = [&](double v) { return type == Scalar::F32 ? b.real(v) : b.integer(static_cast<int64_t>(v), type); };
    const auto math = [&](MathFn f, V v) { return b.math(f, v); };
    const auto transcendental = [&]() -> std::optional<MathFn> {
        switch (node.kind) {
            case OpKind::Sin: return MathFn::Sin;
            case OpKind::Cos: return MathFn::Cos;
            case OpKind::Tan: return MathFn::Tan;
            case OpKind::Asin: return MathFn::Asin;
            case OpKind::Acos: return MathFn::Acos;
            case OpKind::Atan: return MathFn::Atan;
            case OpKind::Sinh: return MathFn::Sinh;
            case OpKind::Cosh: return MathFn::Cosh;
            case OpKind::Asinh: return MathFn::Asinh;
            case OpKind::Acosh: return MathFn::Acosh;
            case OpKind::Atanh: return MathFn::Atanh;
            case OpKind::Floor: return MathFn::Floor;
            case OpKind::Ceil: return MathFn::Ceil;
            default: return std::nullopt;
        }
    }();
    const int64_t elements = elementCount(shape);
    b.loop(elements, [&](V i) {
        const V v = b.load(x, i);
        const auto lt = [&](V a, V c) { return b.compare(ComparePredicate::Lt, a, c); };
        V r = v;
        if (transcendental) {
            r = math(*transcendental, v);
        } else if (node.kind == OpKind::Round) {
            r = b.round(v);
        } else if (node.kind == OpKind::Sign) {
            r = b.select(lt(constant(0), v), constant(1), b.select(lt(v, constant(0)), constant(-1), v));
        } else if (node.kind == OpKind::Softsign) {
            const V magnitude = b.select(lt(v, b.real(0)), b.binary(BinaryOp::Sub, b.real(0), v), v);
            r = b.binary(BinaryOp::Div, v, b.add(b.real(1), magnitude));
        } else if (node.kind == OpKind::Shrink) {
            const double lambd = node.floatAttr("lambd", 0.5f), bias = node.floatAttr("bias", 0.0f);
            if (type == Scalar::F32) {
                r = b.select(lt(v, b.real(-lambd)), b.add(v, b.real(bias)),
                             b.select(lt(b.real(lambd), v), b.binary(BinaryOp::Sub, v, b.real(bias)), b.real(0)));
            } else {
                // Integers compare and shift in double, as the reference does.
                const V d = b.cast(v, Scalar::F32);
                const V shifted = b.select(lt(d, b.real(-lambd)), b.add(d, b.real(bias)),
                                           b.select(lt(b.real(lambd), d), b.binary(BinaryOp::Sub, d, b.real(bias)), b.real(0)));
                r = b.cast(shifted, type);
            }
        } else if (node.kind == OpKind::Celu) {
            const double alpha = node.floatAttr("alpha", 1.0f);
            const V negative = b.mul(b.real(alpha), math(MathFn::Expm1, b.binary(BinaryOp::Div, v, b.real(alpha))));
            r = b.add(b.binary(BinaryOp::Max, v, b.real(0)), b.binary(BinaryOp::Min, negative, b.real(0)));
        } else if (node.kind == OpKind::IsNaN) {
            r = math(MathFn::IsNaN, v);
        } else {  // IsInf
            const bool negative = node.intAttr("detect_negative", 1) != 0, positive = node.intAttr("detect_positive", 1) != 0;
            const double inf = std::numeric_limits<double>::infinity();
            const V isPositive = b.compare(ComparePredicate::Eq, v, b.real(inf));
            const V isNegative = b.compare(ComparePredicate::Eq, v, b.real(-inf));
            r = positive && negative ? b.binary(BinaryOp::Or, isPositive, isNegative)
                : positive           ? isPositive
                : negative           ? isNegative
                                     : b.compare(ComparePredicate::Ne, v, v);  // false for every value
        }
        b.store(y, i, r);
    });
    return k.finish();
}

HostKernel gather(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const int64_t axis = ops::normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(shape.size()));
    const int64_t count = elementCount(graph.value(node.inputs[1]).shape);
    const AxisView v = axisView(shape, axis);
    KernelBuilder& b = k.builder;
    const uint32_t data = k.bind(graph, node.inputs[0], false), indices = k.bind(graph, node.inputs[1], false);
    const uint32_t out = k.bind(graph, node.outputs[0], true);
    b.loop(v.outer, [&](V o) {
        b.loop(count, [&](V j) {
            // Each index picks a row of `inner` elements: its two row starts are computed once,
            // the copy then walks them.
            const V index = checkedIndex(b, b.load(indices, j), v.size);
            const uint32_t from = b.local(b.affine(b.affine(o, v.size, index), v.inner, b.integer(0)));
            const uint32_t to = b.local(b.affine(b.affine(o, count, j), v.inner, b.integer(0)));
            b.loop(v.inner, [&](V n) { b.store(out, b.add(b.get(to), n), b.load(data, b.add(b.get(from), n))); });
        });
    });
    return k.finish();
}

HostKernel gatherElements(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const Shape& indexShape = graph.value(node.inputs[1]).shape;
    const auto axis = static_cast<size_t>(ops::normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(shape.size())));
    KernelBuilder& b = k.builder;
    const uint32_t data = k.bind(graph, node.inputs[0], false), indices = k.bind(graph, node.inputs[1], false);
    const uint32_t out = k.bind(graph, node.outputs[0], true);
    const std::vector<int64_t> dataStrides = ops::rowMajorStrides(shape), indexStrides = ops::rowMajorStrides(indexShape);
    forEachPosition(b, indexShape, [&](const std::vector<V>& p) {
        const V flat = linear(b, p, indexStrides);
        std::vector<int64_t> strides = dataStrides;
        strides[axis] = 0;
        const V index = checkedIndex(b, b.load(indices, flat), shape[axis]);
        b.store(out, flat, b.load(data, b.affine(index, dataStrides[axis], linear(b, p, strides))));
    });
    return k.finish();
}

/// ReduceProd, ReduceSum, ReduceSumSquare and ReduceMean over their axes, GlobalAveragePool
/// over the spatial ones: each result folded in a register, in input order, and stored (a mean
/// divided by the count first, a narrow float rounded) once.
std::optional<HostKernel> reduce(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    std::vector<bool> reduced(shape.size(), false);
    if (node.kind == OpKind::GlobalAveragePool) {
        for (size_t d = 2; d < shape.size(); ++d) reduced[d] = true;
    } else {
        const std::vector<int64_t> axes =
            ops::intsFromAttributeOrInput(graph, node, "axes", 1).value_or(std::vector<int64_t>{});
        const bool noop = axes.empty() && node.intAttr("noop_with_empty_axes", 0) != 0;
        reduced.assign(shape.size(), axes.empty() && !noop);
        for (int64_t axis : axes) reduced[static_cast<size_t>(ops::normalizeAxis(node, axis, static_cast<int64_t>(shape.size())))] = true;
    }
    const bool mean = node.kind == OpKind::ReduceMean || node.kind == OpKind::GlobalAveragePool;
    Shape kept = shape;
    for (size_t d = 0; d < shape.size(); ++d) kept[d] = reduced[d] ? 1 : shape[d];
    std::vector<int64_t> keptStrides = ops::rowMajorStrides(kept);
    for (size_t d = 0; d < shape.size(); ++d) keptStrides[d] = reduced[d] ? 0 : keptStrides[d];
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), y = k.bind(graph, node.outputs[0], true);
    const Scalar type = loadedType(graph.value(node.inputs[0]).dtype);
    if (mean && type != Scalar::F32) return std::nullopt;
    const bool product = node.kind == OpKind::ReduceProd;
    const V initial = type == Scalar::F32 ? b.real(product ? 1 : 0) : b.integer(product ? 1 : 0, type);
    int64_t count = 1;
    for (size_t d = 0; d < shape.size(); ++d) count *= reduced[d] ? shape[d] : 1;
    std::vector<size_t> order;
    for (bool inner : {false, true}) {
        for (size_t d = 0; d < shape.size(); ++d) {
            if (reduced[d] == inner) order.push_back(d);
        }
    }
    const size_t keptCount = static_cast<size_t>(std::count(reduced.begin(), reduced.end(), false));
    const std::vector<int64_t> strides = ops::rowMajorStrides(shape);
    std::vector<V> position(shape.size());
    std::optional<uint32_t> folded;
    std::function<void(size_t)> nest = [&](size_t level) {
        if (level == keptCount) folded = b.local(initial);
        if (level == order.size()) {
            V value = b.load(x, linear(b, position, strides));
            if (node.kind == OpKind::ReduceSumSquare) value = b.mul(value, value);
            b.set(*folded, product ? b.mul(b.get(*folded), value) : b.add(b.get(*folded), value));
        } else {
            b.loop(shape[order[level]], [&](V index) {
                position[order[level]] = index;
                nest(level + 1);
            });
        }
        if (level == keptCount) {
            const V result = mean ? b.binary(BinaryOp::Div, b.get(*folded), b.real(static_cast<double>(count))) : b.get(*folded);
            b.store(y, linear(b, position, keptStrides), result);
        }
    };
    nest(0);
    return k.finish();
}

/// out[..., j (at axis), ...] = values[1] where j is the index there (negative ones counted
/// from depth), values[0] elsewhere; an index outside [-depth, depth) matches no j.
HostKernel oneHot(const Graph& graph, const Node& node, Bound& k) {
    const Shape& indexShape = graph.value(node.inputs[0]).shape;
    const Shape& shape = graph.value(node.outputs[0]).shape;
    const auto axis = static_cast<size_t>(ops::normalizeAxis(node, node.intAttr("axis", -1), static_cast<int64_t>(shape.size())));
    const int64_t depth = shape[axis];
    KernelBuilder& b = k.builder;
    const uint32_t indices = k.bind(graph, node.inputs[0], false), values = k.bind(graph, node.inputs[2], false);
    const uint32_t out = k.bind(graph, node.outputs[0], true);
    std::vector<int64_t> indexStrides(shape.size(), 0);
    const std::vector<int64_t> dense = ops::rowMajorStrides(indexShape);
    for (size_t d = 0, i = 0; d < shape.size(); ++d) {
        if (d != axis) indexStrides[d] = dense[i++];
    }
    const std::vector<int64_t> outStrides = ops::rowMajorStrides(shape);
    const bool floatIndices = loadedType(graph.value(node.inputs[0]).dtype) == Scalar::F32;
    forEachPosition(b, shape, [&](const std::vector<V>& p) {
        const V raw = b.load(indices, linear(b, p, indexStrides));
        // A float index is truncated, as the reference does; one whose truncation lies outside
        // [-depth, depth) (or NaN) matches nothing, and only one inside is converted.
        V index = b.cast(raw, Scalar::I64);
        if (floatIndices) {
            const V inside = b.binary(BinaryOp::And, b.compare(ComparePredicate::Gt, raw, b.real(static_cast<double>(-depth - 1))),
                                      b.compare(ComparePredicate::Lt, raw, b.real(static_cast<double>(depth))));
            index = b.select(inside, index, b.integer(depth));
        }
        index = b.select(b.compare(ComparePredicate::Lt, index, b.integer(0)), b.add(index, b.integer(depth)), index);
        b.store(out, linear(b, p, outStrides),
                b.select(b.compare(ComparePredicate::Eq, index, p[axis]), b.load(values, b.integer(1)),
                         b.load(values, b.integer(0))));
    });
    return k.finish();
}

/// ONNX's function body in fp32: the range [min(x, 0), max(x, 0)] maps onto [0, 255]; y is
/// x / scale rounded half to even plus the zero point, saturated (a NaN counts as 0).
HostKernel dynamicQuantizeLinear(const Graph& graph, const Node& node, Bound& k) {
    const int64_t count = elementCount(graph.value(node.inputs[0]).shape);
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false);
    const uint32_t y = k.bind(graph, node.outputs[0], true), scaleOut = k.bind(graph, node.outputs[1], true);
    const uint32_t zeroOut = k.bind(graph, node.outputs[2], true);
    const uint32_t low = b.local(b.real(0)), high = b.local(b.real(0));
    b.loop(count, [&](V i) {
        b.set(low, b.binary(BinaryOp::Min, b.get(low), b.load(x, i)));
        b.set(high, b.binary(BinaryOp::Max, b.get(high), b.load(x, i)));
    });
    const uint32_t scale = b.local(b.binary(BinaryOp::Div, b.binary(BinaryOp::Sub, b.get(high), b.get(low)), b.real(255)));
    const auto saturated = [&](V value) {
        const V notNan = b.select(b.compare(ComparePredicate::Ne, value, value), b.real(0), value);
        return b.cast(b.binary(BinaryOp::Min, b.binary(BinaryOp::Max, notNan, b.real(-1e9)), b.real(1e9)), Scalar::I32);
    };
    const auto clampByte = [&](V value) {
        return b.binary(BinaryOp::Min, b.binary(BinaryOp::Max, value, b.integer(0, Scalar::I32)), b.integer(255, Scalar::I32));
    };
    const uint32_t zero = b.local(clampByte(saturated(b.round(b.binary(BinaryOp::Sub, b.real(0), b.binary(BinaryOp::Div, b.get(low), b.get(scale)))))));
    b.loop(count, [&](V i) {
        b.store(y, i, clampByte(b.add(saturated(b.round(b.binary(BinaryOp::Div, b.load(x, i), b.get(scale)))), b.get(zero))));
    });
    b.store(scaleOut, b.integer(0), b.get(scale));
    b.store(zeroOut, b.integer(0), b.get(zero));
    return k.finish();
}

}  // namespace

std::optional<HostKernel> hostKernelFor(const Graph& graph, const Node& node, uint32_t opId) {
    if (!allKernelTypes(graph, node)) return std::nullopt;
    // These ops work along an axis of their first input, which a scalar lacks (ONNX refuses
    // it; so does the kernel).
    const bool alongAxis = node.kind == OpKind::CumSum || node.kind == OpKind::ArgMax || node.kind == OpKind::ArgMin ||
                           node.kind == OpKind::TopK || node.kind == OpKind::Gather || node.kind == OpKind::GatherElements ||
                           node.kind == OpKind::Hardmax;
    if (alongAxis && graph.value(node.inputs[0]).shape.empty()) return std::nullopt;
    // Gathering from an empty axis: every index is out of range.
    const bool gathers = node.kind == OpKind::Gather || node.kind == OpKind::GatherElements || node.kind == OpKind::GatherND;
    if (gathers && elementCount(graph.value(node.inputs[0]).shape) == 0) return std::nullopt;
    Bound k("npusim_op" + std::to_string(opId));
    switch (node.kind) {
        case OpKind::CumSum:
            if (!graph.value(node.inputs[1]).constant) {
                opError(node, "the axis must be a constant for the CPU kernel (it decides the loop nest)");
            }
            return cumSum(graph, node, k);
        case OpKind::ArgMax:
        case OpKind::ArgMin: return argExtreme(graph, node, k);
        case OpKind::TopK: return topK(graph, node, k);
        case OpKind::Where: return where(graph, node, k);
        case OpKind::Mod: return mod(graph, node, k);
        case OpKind::Gather: return gather(graph, node, k);
        case OpKind::GatherElements: return gatherElements(graph, node, k);
        case OpKind::ReduceProd:
        case OpKind::ReduceSum:
        case OpKind::ReduceSumSquare:
        case OpKind::ReduceMean:
        case OpKind::GlobalAveragePool: return reduce(graph, node, k);
        case OpKind::OneHot: return oneHot(graph, node, k);
        case OpKind::Sin: case OpKind::Cos: case OpKind::Tan: case OpKind::Asin: case OpKind::Acos: case OpKind::Atan:
        case OpKind::Sinh: case OpKind::Cosh: case OpKind::Asinh: case OpKind::Acosh: case OpKind::Atanh:
        case OpKind::Floor: case OpKind::Ceil: case OpKind::Round: case OpKind::Sign: case OpKind::Softsign:
        case OpKind::Shrink: case OpKind::Celu: case OpKind::IsNaN: case OpKind::IsInf: return elementwiseMath(graph, node, k);
        case OpKind::DynamicQuantizeLinear: return dynamicQuantizeLinear(graph, node, k);
        case OpKind::NegativeLogLikelihoodLoss: return negativeLogLikelihoodLoss(graph, node, k);
        case OpKind::Hardmax: return hardmax(graph, node, k);
        case OpKind::BitShift: return bitShift(graph, node, k);
        case OpKind::ReverseSequence: return reverseSequence(graph, node, k);
        case OpKind::LRN: return lrn(graph, node, k);
        case OpKind::Det: return det(graph, node, k);
        case OpKind::ScatterElements:
        case OpKind::Scatter: return scatterElements(graph, node, k);
        case OpKind::ScatterND: return scatterNd(graph, node, k);
        case OpKind::GatherND: return gatherNd(graph, node, k);
        case OpKind::GridSample: return gridSample(graph, node, k);
        case OpKind::RoiAlign: return roiAlign(graph, node, k);
        case OpKind::MaxUnpool: return maxUnpool(graph, node, k);
        case OpKind::DFT: return dft(graph, node, k);
        case OpKind::STFT: return stft(graph, node, k);
        case OpKind::TfIdfVectorizer: return tfIdfVectorizer(graph, node, k);
        case OpKind::Einsum: return einsum(graph, node, k);
        default: return dataDependentKernel(graph, node, k);
    }
}

}  // namespace npusim::compiler::cpu
