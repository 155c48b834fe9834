// CPU kernels that sample an image at computed points, in double: GridSample (per output
// position the sample point and its taps, clamped flat indices, validity and weights, are kept
// in locals; every channel then sums its taps) and RoiAlign (per region, bin and channel, a grid
// of bilinear samples whose size may depend on the region).
#include "compiler/cpu/kernel_support.h"
#include "compiler/graph/op_attributes.h"

namespace npusim::compiler::cpu {
namespace {

/// A pixel the sample reads: its flat index in a plane (clamped into it), whether it lies in
/// the plane (else it reads 0) and its weight.
struct Tap {
    uint32_t index, inside, weight;
};

class GridSampler {
public:
    GridSampler(KernelBuilder& b, const ops::GridSampleOptions& o, int64_t height, int64_t width)
        : b_(b), o_(o), height_(height), width_(width) {}

    V wide(double value) { return b_.real(value, Scalar::F64); }
    V sub(V a, V c) { return b_.binary(BinaryOp::Sub, a, c); }

    /// The input coordinate of grid value g along an axis of `size` pixels.
    V source(V g, int64_t size) {
        const auto n = static_cast<double>(size);
        if (o_.alignCorners) return b_.mul(b_.mul(b_.add(g, wide(1)), wide(0.5)), wide(n - 1));
        return b_.mul(sub(b_.mul(b_.add(g, wide(1)), wide(n)), wide(1)), wide(0.5));
    }

    /// x moved inside [0, size - 1] by border or reflection padding; as it is for zeros.
    V padded(V x, int64_t size) {
        const auto last = static_cast<double>(size - 1);
        if (o_.padding == ops::GridPadding::Zeros) return x;
        if (o_.padding == ops::GridPadding::Reflection) {
            x = o_.alignCorners ? reflect(x, 0, 2 * last) : reflect(x, -1, 2 * last + 1);
        }
        return b_.binary(BinaryOp::Min, b_.binary(BinaryOp::Max, x, wide(0)), wide(last));
    }

    /// A tap at integral (row, column) with `weight`.
    void tap(V row, V column, V weight) {
        const auto within = [&](V v, int64_t size) {
            return b_.binary(BinaryOp::And, b_.compare(ComparePredicate::Ge, v, wide(0)),
                             b_.compare(ComparePredicate::Lt, v, wide(static_cast<double>(size))));
        };
        const auto clamped = [&](V v, int64_t size) {
            const V inside = b_.binary(BinaryOp::Min, b_.binary(BinaryOp::Max, v, wide(0)), wide(static_cast<double>(size - 1)));
            return b_.cast(inside, Scalar::I64);
        };
        taps_.push_back({b_.local(b_.affine(clamped(row, height_), width_, clamped(column, width_))),
                         b_.local(b_.binary(BinaryOp::And, within(row, height_), within(column, width_))), b_.local(weight)});
    }

    /// The taps of the sample at source coordinates (x, y).
    const std::vector<Tap>& taps(V x, V y) {
        taps_.clear();
        if (o_.mode == ops::GridMode::Nearest) {
            tap(b_.round(padded(y, height_)), b_.round(padded(x, width_)), wide(1));
        } else if (o_.mode == ops::GridMode::Bilinear) {
            const uint32_t px = b_.local(padded(x, width_)), py = b_.local(padded(y, height_));
            const uint32_t x0 = b_.local(b_.math(MathFn::Floor, b_.get(px))), y0 = b_.local(b_.math(MathFn::Floor, b_.get(py)));
            const V fx = sub(b_.get(px), b_.get(x0)), fy = sub(b_.get(py), b_.get(y0));
            for (int i = 0; i < 2; ++i) {
                for (int j = 0; j < 2; ++j) {
                    const V wy = i ? fy : sub(wide(1), fy), wx = j ? fx : sub(wide(1), fx);
                    tap(b_.add(b_.get(y0), wide(i)), b_.add(b_.get(x0), wide(j)), b_.mul(wy, wx));
                }
            }
        } else {
            const uint32_t x0 = b_.local(b_.math(MathFn::Floor, x)), y0 = b_.local(b_.math(MathFn::Floor, y));
            const std::vector<V> wx = cubicWeights(sub(x, b_.get(x0))), wy = cubicWeights(sub(y, b_.get(y0)));
            for (int i = 0; i < 4; ++i) {
                for (int j = 0; j < 4; ++j) {
                    tap(padded(b_.add(b_.get(y0), wide(i - 1)), height_), padded(b_.add(b_.get(x0), wide(j - 1)), width_),
                        b_.mul(wy[i], wx[j]));
                }
            }
        }
        return taps_;
    }

private:
    /// The reflection of x into [low / 2, high / 2].
    V reflect(V x, double twiceLow, double twiceHigh) {
        if (twiceLow == twiceHigh) return wide(0);
        const double low = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
        const V shifted = sub(x, wide(low));
        const uint32_t distance = b_.local(b_.binary(BinaryOp::Max, shifted, sub(wide(0), shifted)));
        const V extra = b_.binary(BinaryOp::Rem, b_.get(distance), wide(span));
        const V flips = b_.math(MathFn::Floor, b_.binary(BinaryOp::Div, b_.get(distance), wide(span)));
        const V even = b_.compare(ComparePredicate::Eq, b_.binary(BinaryOp::Rem, flips, wide(2)), wide(0));
        return b_.select(even, b_.add(extra, wide(low)), b_.add(sub(wide(span), extra), wide(low)));
    }

    /// Keys' cubic convolution weights (a = -0.75) of the taps at floor(x) - 1 ... floor(x) + 2.
    std::vector<V> cubicWeights(V t) {
        constexpr double a = -0.75;
        const uint32_t local = b_.local(t);
        const auto near = [&](V d) { return b_.add(b_.mul(b_.mul(sub(b_.mul(wide(a + 2), d), wide(a + 3)), d), d), wide(1)); };
        const auto far = [&](V d) {
            return sub(b_.mul(b_.add(b_.mul(sub(b_.mul(wide(a), d), wide(5 * a)), d), wide(8 * a)), d), wide(4 * a));
        };
        const V f = b_.get(local);
        return {far(b_.add(f, wide(1))), near(f), near(sub(wide(1), f)), far(sub(wide(2), f))};
    }

    KernelBuilder& b_;
    const ops::GridSampleOptions& o_;
    int64_t height_, width_;
    std::vector<Tap> taps_;
};

}  // namespace

HostKernel gridSample(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const Shape& out = graph.value(node.outputs[0]).shape;
    const int64_t channels = shape[1], plane = shape[2] * shape[3];
    const ops::GridSampleOptions o = ops::gridSampleOptions(node);
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), grid = k.bind(graph, node.inputs[1], false);
    const uint32_t y = k.bind(graph, node.outputs[0], true);
    GridSampler sampler(b, o, shape[2], shape[3]);
    forEachPosition(b, {out[0], out[2], out[3]}, [&](const std::vector<V>& p) {
        const V at = b.affine(b.affine(b.affine(p[0], out[2], p[1]), out[3], p[2]), 2, b.integer(0));
        const uint32_t sx = b.local(sampler.source(b.cast(b.load(grid, at), Scalar::F64), shape[3]));
        const uint32_t sy = b.local(sampler.source(b.cast(b.load(grid, b.add(at, b.integer(1))), Scalar::F64), shape[2]));
        const std::vector<Tap> taps = sampler.taps(b.get(sx), b.get(sy));
        b.loop(channels, [&](V c) {
            const V base = b.mul(b.affine(p[0], channels, c), b.integer(plane));
            V sum = sampler.wide(0);
            for (const Tap& t : taps) {
                const V value = b.cast(b.load(x, b.add(base, b.get(t.index))), Scalar::F64);
                sum = b.add(sum, b.mul(b.select(b.get(t.inside), value, sampler.wide(0)), b.get(t.weight)));
            }
            b.store(y, b.affine(b.affine(b.affine(p[0], channels, c), out[2], p[1]), out[3], p[2]), b.cast(sum, Scalar::F32));
        });
    });
    return k.finish();
}

namespace {

/// One region of RoiAlign: its corner, bin sizes and samples per bin, per axis, in locals.
struct RegionAxis {
    uint32_t start, bin, samples;
};

class RoiSampler {
public:
    RoiSampler(KernelBuilder& b, const ops::RoiAlignOptions& o, int64_t height, int64_t width)
        : b_(b), o_(o), height_(height), width_(width) {}

    V wide(double value) { return b_.real(value, Scalar::F64); }
    V sub(V a, V c) { return b_.binary(BinaryOp::Sub, a, c); }
    V div(V a, V c) { return b_.binary(BinaryOp::Div, a, c); }

    /// The axis of a region from its two (unscaled) ends: `bins` bins and their samples, the
    /// ratio or ceil(bin) each.
    RegionAxis axis(V first, V last, int64_t bins) {
        const double offset = o_.halfPixel ? 0.5 : 0.0;
        const uint32_t start = b_.local(sub(b_.mul(first, wide(o_.spatialScale)), wide(offset)));
        V length = sub(sub(b_.mul(last, wide(o_.spatialScale)), wide(offset)), b_.get(start));
        if (!o_.halfPixel) length = b_.binary(BinaryOp::Max, length, wide(1));  // at least a pixel
        const uint32_t bin = b_.local(div(length, wide(static_cast<double>(bins))));
        const V samples = o_.samplingRatio > 0 ? b_.integer(o_.samplingRatio)
                                               : b_.cast(b_.math(MathFn::Ceil, b_.get(bin)), Scalar::I64);
        return {start, bin, b_.local(samples)};
    }

    /// The coordinate of sample i of bin p along `a`.
    V point(const RegionAxis& a, V p, V i) {
        const V within = div(b_.mul(b_.add(b_.cast(i, Scalar::F64), wide(0.5)), b_.get(a.bin)), b_.cast(b_.get(a.samples), Scalar::F64));
        return b_.add(b_.add(b_.get(a.start), b_.mul(b_.cast(p, Scalar::F64), b_.get(a.bin))), within);
    }

    /// The bilinear sample at (row, column) of the plane at `plane` in x: its 4 weighted corners,
    /// summed (avg) or their largest (max); 0 for a point more than a pixel outside the map.
    V sample(uint32_t x, V plane, V row, V column) {
        const uint32_t r = b_.local(row), c = b_.local(column);
        const auto beyond = [&](uint32_t v, int64_t size) {
            return b_.binary(BinaryOp::Or, b_.compare(ComparePredicate::Lt, b_.get(v), wide(-1)),
                             b_.compare(ComparePredicate::Gt, b_.get(v), wide(static_cast<double>(size))));
        };
        const V outside = b_.binary(BinaryOp::Or, beyond(r, height_), beyond(c, width_));
        const Corner ry = corner(r, height_), cx = corner(c, width_);
        const V fy = b_.get(ry.fraction), fx = b_.get(cx.fraction);
        const V weights[] = {b_.mul(sub(wide(1), fy), sub(wide(1), fx)), b_.mul(sub(wide(1), fy), fx),
                             b_.mul(fy, sub(wide(1), fx)), b_.mul(fy, fx)};
        std::optional<V> result;
        for (int i = 0; i < 4; ++i) {
            const V at = b_.affine(b_.get(i / 2 ? ry.high : ry.low), width_, b_.get(i % 2 ? cx.high : cx.low));
            const V term = b_.select(outside, wide(0), b_.mul(weights[i], b_.cast(b_.load(x, b_.add(plane, at)), Scalar::F64)));
            result = !result ? term : o_.max ? b_.binary(BinaryOp::Max, *result, term) : b_.add(*result, term);
        }
        return *result;
    }

private:
    /// The low and high index along an axis and the high one's weight.
    struct Corner {
        uint32_t low, high, fraction;
    };

    /// A coordinate clamped up to 0; at or past the last pixel both indices are the last.
    Corner corner(uint32_t coordinate, int64_t size) {
        const auto last = static_cast<double>(size - 1);
        const uint32_t at = b_.local(b_.binary(BinaryOp::Max, b_.get(coordinate), wide(0)));
        const uint32_t low = b_.local(b_.math(MathFn::Floor, b_.get(at)));
        const V pastEnd = b_.compare(ComparePredicate::Ge, b_.get(low), wide(last));
        const uint32_t fraction = b_.local(b_.select(pastEnd, wide(0), sub(b_.get(at), b_.get(low))));
        const V clamped = b_.binary(BinaryOp::Min, b_.get(low), wide(last));
        const uint32_t high = b_.local(b_.cast(b_.select(pastEnd, clamped, b_.add(clamped, wide(1))), Scalar::I64));
        return {b_.local(b_.cast(clamped, Scalar::I64)), high, fraction};
    }

    KernelBuilder& b_;
    const ops::RoiAlignOptions& o_;
    int64_t height_, width_;
};

}  // namespace

HostKernel roiAlign(const Graph& graph, const Node& node, Bound& k) {
    const Shape& shape = graph.value(node.inputs[0]).shape;
    const int64_t batchSize = shape[0], channels = shape[1], height = shape[2], width = shape[3];
    const ops::RoiAlignOptions o = ops::roiAlignOptions(node);
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), rois = k.bind(graph, node.inputs[1], false);
    const uint32_t batch = k.bind(graph, node.inputs[2], false), y = k.bind(graph, node.outputs[0], true);
    RoiSampler sampler(b, o, height, width);
    // Adaptive sampling is counted as for a region of the whole map.
    const auto counted = [&](int64_t size, int64_t bins) { return o.samplingRatio > 0 ? o.samplingRatio : (size + bins - 1) / bins; };
    b.loop(graph.value(node.inputs[1]).shape[0], [&](V r) {
        const uint32_t entry = b.local(b.load(batch, r));
        b.when(b.binary(BinaryOp::Or, b.compare(ComparePredicate::Lt, b.get(entry), b.integer(0)),
                        b.compare(ComparePredicate::Ge, b.get(entry), b.integer(batchSize))),
               [&] { b.fail(KernelStatus::IndexOutOfRange); });
        const auto end = [&](int64_t i) { return b.cast(b.load(rois, b.affine(r, 4, b.integer(i))), Scalar::F64); };
        const RegionAxis across = sampler.axis(end(0), end(2), o.width), down = sampler.axis(end(1), end(3), o.height);
        const V count = b.cast(b.binary(BinaryOp::Max, b.mul(b.get(down.samples), b.get(across.samples)), b.integer(1)), Scalar::F64);
        b.loop(channels, [&](V c) {
            const V plane = b.mul(b.affine(b.get(entry), channels, c), b.integer(height * width));
            b.loop(o.height, [&](V ph) {
                b.loop(o.width, [&](V pw) {
                    const uint32_t result = b.local(sampler.wide(0)), seen = b.local(b.integer(0, Scalar::I1));
                    b.loopUpTo(b.get(down.samples), counted(height, o.height), [&](V iy) {
                        const uint32_t row = b.local(sampler.point(down, ph, iy));
                        b.loopUpTo(b.get(across.samples), counted(width, o.width), [&](V ix) {
                            const V value = sampler.sample(x, plane, b.get(row), sampler.point(across, pw, ix));
                            if (o.max) {
                                b.set(result, b.select(b.get(seen), b.binary(BinaryOp::Max, b.get(result), value), value));
                                b.set(seen, b.integer(1, Scalar::I1));
                            } else {
                                b.set(result, b.add(b.get(result), value));
                            }
                        });
                    });
                    const V value = o.max ? b.get(result) : sampler.div(b.get(result), count);
                    b.store(y, b.affine(b.affine(b.affine(r, channels, c), o.height, ph), o.width, pw), b.cast(value, Scalar::F32));
                });
            });
        });
    });
    return k.finish();
}

}  // namespace npusim::compiler::cpu
