// CPU kernels of DFT and STFT: each output bin is a sum over the signal's points in double, the
// twiddle angle computed from k n mod N so that it stays small, its cosine and sine from the C
// library, as the reference does.
#include <numbers>

#include "compiler/cpu/kernel_support.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/spectral.h"

namespace npusim::compiler::cpu {
namespace {

/// A point of the signal: its real and imaginary parts.
using Point = std::pair<V, V>;

/// For bin k of a `size`-point transform of `points` points that `at(n)` loads, calls
/// store(real, imaginary).
void spectrumBin(KernelBuilder& b, V k, int64_t points, int64_t size, bool inverse, const std::function<Point(V)>& at,
                 const std::function<void(V, V)>& store) {
    const auto wide = [&](double value) { return b.real(value, Scalar::F64); };
    const uint32_t real = b.local(wide(0)), imaginary = b.local(wide(0));
    b.loop(points, [&](V n) {
        const V turn = b.cast(b.binary(BinaryOp::Rem, b.mul(k, n), b.integer(size)), Scalar::F64);
        const uint32_t angle = b.local(b.mul(turn, wide((inverse ? 2 : -2) * std::numbers::pi / static_cast<double>(size))));
        const uint32_t cosine = b.local(b.math(MathFn::Cos, b.get(angle))), sine = b.local(b.math(MathFn::Sin, b.get(angle)));
        const auto [xr, xi] = at(n);
        b.set(real, b.add(b.get(real), b.binary(BinaryOp::Sub, b.mul(xr, b.get(cosine)), b.mul(xi, b.get(sine)))));
        b.set(imaginary, b.add(b.get(imaginary), b.add(b.mul(xr, b.get(sine)), b.mul(xi, b.get(cosine)))));
    });
    const V scale = wide(inverse ? 1.0 / static_cast<double>(size) : 1.0);
    store(b.mul(b.get(real), scale), b.mul(b.get(imaginary), scale));
}

/// The optional scalar count of input `index` (a constant).
std::optional<int64_t> constantCount(const Graph& graph, const Node& node, size_t index, const char* what) {
    if (index >= node.inputs.size() || node.inputs[index] == kNoValue) return std::nullopt;
    return ops::constantInts(graph, node, index, what).at(0);
}

}  // namespace

HostKernel dft(const Graph& graph, const Node& node, Bound& k) {
    const ops::DftGeometry g =
        ops::dftGeometry(node, graph.value(node.inputs[0]).shape, constantCount(graph, node, 1, "dft_length"));
    KernelBuilder& b = k.builder;
    const uint32_t x = k.bind(graph, node.inputs[0], false), y = k.bind(graph, node.outputs[0], true);
    b.loop(g.outer, [&](V o) {
        b.loop(g.bins, [&](V bin) {
            b.loop(g.inner, [&](V i) {
                const auto at = [&](V n) {
                    const V element = b.mul(b.affine(b.affine(o, g.length, n), g.inner, i), b.integer(g.components));
                    const V real = b.cast(b.load(x, element), Scalar::F64);
                    return Point{real, g.components == 2 ? b.cast(b.load(x, b.add(element, b.integer(1))), Scalar::F64)
                                                         : b.real(0, Scalar::F64)};
                };
                const V out = b.mul(b.affine(b.affine(o, g.bins, bin), g.inner, i), b.integer(2));
                spectrumBin(b, bin, std::min(g.length, g.size), g.size, g.inverse, at, [&](V real, V imaginary) {
                    b.store(y, out, b.cast(real, Scalar::F32));
                    b.store(y, b.add(out, b.integer(1)), b.cast(imaginary, Scalar::F32));
                });
            });
        });
    });
    return k.finish();
}

HostKernel stft(const Graph& graph, const Node& node, Bound& k) {
    const bool windowed = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
    const ops::StftGeometry g = ops::stftGeometry(
        node, graph.value(node.inputs[0]).shape, *constantCount(graph, node, 1, "frame_step"),
        windowed ? std::optional(graph.value(node.inputs[2]).shape) : std::nullopt, constantCount(graph, node, 3, "frame_length"));
    KernelBuilder& b = k.builder;
    const uint32_t signal = k.bind(graph, node.inputs[0], false);
    const uint32_t window = windowed ? k.bind(graph, node.inputs[2], false) : 0;
    const uint32_t y = k.bind(graph, node.outputs[0], true);
    b.loop(g.batch, [&](V batch) {
        b.loop(g.frames, [&](V frame) {
            b.loop(g.bins, [&](V bin) {
                const auto at = [&](V n) {
                    const V element = b.mul(b.add(b.mul(batch, b.integer(g.length)), b.affine(frame, g.step, n)), b.integer(g.components));
                    const V weight = windowed ? b.cast(b.load(window, n), Scalar::F64) : b.real(1, Scalar::F64);
                    const V real = b.mul(b.cast(b.load(signal, element), Scalar::F64), weight);
                    return Point{real, g.components == 2 ? b.mul(b.cast(b.load(signal, b.add(element, b.integer(1))), Scalar::F64), weight)
                                                         : b.real(0, Scalar::F64)};
                };
                const V out = b.mul(b.affine(b.affine(batch, g.frames, frame), g.bins, bin), b.integer(2));
                spectrumBin(b, bin, g.frameLength, g.frameLength, false, at, [&](V real, V imaginary) {
                    b.store(y, out, b.cast(real, Scalar::F32));
                    b.store(y, b.add(out, b.integer(1)), b.cast(imaginary, Scalar::F32));
                });
            });
        });
    });
    return k.finish();
}

}  // namespace npusim::compiler::cpu
