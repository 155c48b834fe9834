// Sliding windows over padded planes: depthwise convolutions and pools with each block of
// channels' input planes loaded once, whole, into rows padded with the window's padding value
// (0 for a convolution, the lowest value for a max pool); every kernel tap is then a window of
// those rows that the vector unit reads in place (every s-th element for a window of stride s:
// vec src0_col_stride). Beside the box kernels (lower_depthwise.cpp, poolProblems), which load
// each tap as its own strided view, this moves each input element once and in long runs; the
// cost model chooses between the two (tiling.cpp).
#include <limits>
#include <optional>

#include "arch/int_math.h"
#include "compiler/graph/convolution.h"
#include "compiler/graph/op_support.h"
#include "compiler/tiling/vector_lowering.h"

namespace npusim::compiler {
namespace {

using isa::VectorOp;

/// The ISA's 16-bit rows, cols and stride fields of a vector command.
constexpr int64_t kMaxVectorField = 0xffff;

/// A window's padded plane: the input's spatial block at `padBegin` in a plane of `padded`
/// extents, large enough for every tap of every output position.
struct PaddedPlane {
    Shape padded;
    std::vector<int64_t> pitch;  ///< row-major strides of the padded plane
    int64_t size = 1;
};

std::optional<PaddedPlane> paddedPlane(const ops::WindowGeometry& g) {
    PaddedPlane plane;
    for (size_t i = 0; i < g.input.size(); ++i) {
        if (g.padBegin[i] < 0 || g.padEnd[i] < 0) return std::nullopt;
        // Every output position must read at least one input element (none lies wholly in padding).
        for (int64_t o = 0; o < g.output[i]; ++o) {
            bool reads = false;
            for (int64_t k = 0; k < g.kernel[i] && !reads; ++k) {
                const int64_t at = o * g.strides[i] - g.padBegin[i] + k * g.dilations[i];
                reads = at >= 0 && at < g.input[i];
            }
            if (!reads) return std::nullopt;
        }
        const int64_t reach = (g.output[i] - 1) * g.strides[i] + (g.kernel[i] - 1) * g.dilations[i] + 1;
        plane.padded.push_back(std::max(g.padBegin[i] + g.input[i] + g.padEnd[i], reach));
    }
    plane.pitch = ops::rowMajorStrides(plane.padded);
    plane.size = elementCount(plane.padded);
    return plane;
}

/// A block-row layout (VectorProblem::colPitch and padRows; colPitch empty: dense) and the
/// width of the plane buffer it needs.
struct WindowLayout {
    std::vector<int64_t> colPitch;
    std::optional<int64_t> padRows;
    int64_t width = 0;
};

/// The problem's frame: dims [N, C, output spatial...] with the spatial dims as columns, the
/// plane load of X and the window of each kernel tap. nullopt when the vector commands' fields
/// cannot hold the planes.
struct WindowFrame {
    Shape dims;
    DType dtype = DType::Fp32;  ///< X's, which the plane holds
    int colDims = 0;
    PlaneLayout plane;  ///< where each row's plane of X lands
    TensorView rows;    ///< X's row dims, [N, C]
    std::vector<WindowRead> taps;  ///< in row-major kernel order
    /// The block-row layouts to try: dense, and when the window's strides allow, the padded
    /// rows in which each tap is one run, and (pools) the output rows as command rows.
    std::vector<WindowLayout> layouts;
};

/// A plane buffer's width, widened to an odd number of SRAM bank widths: a window command's
/// rows are block rows, a width apart, and at a power-of-two pitch they would all start in the
/// few banks the pitch reaches and wait on each other; at an odd pitch they start in every bank.
int64_t conflictFreeWidth(int64_t width, DType dtype, const MemoryConfig& sram) {
    const auto chunk = static_cast<int64_t>(sram.bankWidthBytes) / static_cast<int64_t>(dtypeSize(dtype));
    if (chunk == 0 || sram.banks < 2) return width;
    const int64_t chunks = ceilDiv(width, chunk);
    return (chunks % 2 == 0 ? chunks + 1 : chunks) * chunk;
}

/// `outputRows`: whether to offer the layout whose command rows are output rows (only for
/// kernels without one value per block row, which such rows would not line up with).
std::optional<WindowFrame> windowFrame(const Shape& x, DType dtype, const ops::WindowGeometry& g, uint32_t padBits,
                                       bool outputRows, const MemoryConfig& sram) {
    const std::optional<PaddedPlane> padded = paddedPlane(g);
    const size_t spatial = g.input.size();
    if (!padded || spatial == 0) return std::nullopt;
    WindowFrame f;
    f.dtype = dtype;
    f.dims = {x[0], x[1]};
    f.dims.insert(f.dims.end(), g.output.begin(), g.output.end());
    f.colDims = static_cast<int>(spatial);
    const int64_t outputPlane = elementCount(g.output);
    const int64_t width = conflictFreeWidth(padded->size, dtype, sram);
    if (x[0] * x[1] > kMaxVectorField || width > kMaxVectorField || outputPlane > kMaxVectorField) return std::nullopt;

    const std::vector<int64_t> in = ops::rowMajorStrides(x);
    f.rows = {kNoValue, 0, {in[0], in[1]}};
    f.rows.strides.resize(f.dims.size(), 0);
    f.plane.extents = g.input;
    f.plane.dramStrides.assign(in.begin() + 2, in.end());
    f.plane.onchipStrides = padded->pitch;
    for (size_t i = 0; i < spatial; ++i) f.plane.onchipOffset += g.padBegin[i] * padded->pitch[i];
    f.plane.padBits = padBits;

    std::vector<int64_t> strides(spatial);
    for (size_t i = 0; i < spatial; ++i) {
        strides[i] = g.strides[i] * padded->pitch[i];
        if (strides[i] > kMaxVectorField) return std::nullopt;
    }
    // Padded rows: output index j along dim i at j * strides[i] / strides.back(), so that the
    // tap's elements are one run at the window's last stride.
    f.layouts.push_back({{}, std::nullopt, width});
    std::vector<int64_t> pitch(spatial);
    bool aligned = true;
    for (size_t i = 0; i < spatial; ++i) {
        aligned = aligned && strides[i] % strides.back() == 0;
        pitch[i] = strides[i] / strides.back();
    }
    int64_t run = 1;
    for (size_t i = 0; i < spatial; ++i) run += (g.output[i] - 1) * pitch[i];
    if (aligned && g.output[0] * pitch[0] <= kMaxVectorField && run <= kMaxVectorField) {
        f.layouts.push_back({pitch, std::nullopt, width});
    }
    // Output rows: each block row holds its output rows densely, and as many more as its
    // plane, widened to whole window row steps, has beyond them. A window of row stride s
    // then computes about 1/s of the padded-rows layout's elements.
    if (outputRows && spatial == 2) {
        const int64_t steps = ceilDiv(padded->size, strides[0]);
        const int64_t width = steps * strides[0];
        if (width <= kMaxVectorField && steps * g.output[1] <= kMaxVectorField) {
            f.layouts.push_back({{g.output[1], 1}, steps - g.output[0], width});
        }
    }
    ops::forEachPosition(g.kernel, [&](const std::vector<int64_t>& k) {
        int64_t offset = 0;
        for (size_t i = 0; i < spatial; ++i) offset += k[i] * g.dilations[i] * padded->pitch[i];
        f.taps.push_back({offset, strides});
    });
    return f;
}

/// The problem of one block-row layout: dims and the plane load of X.
VectorBuilder frameBuilder(uint32_t opId, std::string name, const WindowFrame& f, const WindowLayout& layout, ValueId x,
                           uint32_t& plane) {
    VectorBuilder b(opId, std::move(name), f.dims, f.colDims);
    TensorView rows = f.rows;
    rows.value = x;
    plane = b.loadPlane(rows, f.dtype, f.plane, layout.width);
    return b;
}

VectorProblem finished(VectorBuilder& b, uint32_t result, const Graph& graph, const Node& node,
                       const WindowLayout& layout) {
    b.store(result, {node.outputs[0], 0, ops::rowMajorStrides(graph.value(node.outputs[0]).shape)});
    VectorProblem problem = b.finish();
    problem.colPitch = layout.colPitch;
    problem.padRows = layout.padRows;
    return problem;
}

/// Y = B + sum over taps of W[c, tap] * window(tap), in the reference's order (bias first).
VectorProblem depthwiseWindow(const Graph& graph, const Node& node, uint32_t opId, const WindowFrame& f,
                              const WindowLayout& layout) {
    uint32_t plane = 0;
    VectorBuilder b = frameBuilder(opId, "depthwise_window", f, layout, node.inputs[0], plane);
    // W[c, 0, taps...] and B[c]: one value per row (channel) of the block.
    const auto taps = static_cast<int64_t>(f.taps.size());
    auto column = [&](ValueId value, int64_t offset, int64_t stride) {
        TensorView view{value, offset, {0, stride}};
        view.strides.resize(f.dims.size(), 0);
        return b.load(view, DType::Fp32);
    };
    uint32_t sum = b.window(VectorOp::Mul, plane, f.taps[0], column(node.inputs[1], 0, taps));
    if (node.inputs.size() > 2 && node.inputs[2] != kNoValue) sum = b.binary(VectorOp::Add, sum, column(node.inputs[2], 0, 1));
    for (int64_t t = 1; t < taps; ++t) {
        const uint32_t product = b.window(VectorOp::Mul, plane, f.taps[static_cast<size_t>(t)], column(node.inputs[1], t, taps));
        sum = b.binary(VectorOp::Add, sum, product);
    }
    return finished(b, sum, graph, node, layout);
}

/// The max, or the sum scaled by 1 / `divisor`, of the taps' windows.
VectorProblem poolWindow(const Graph& graph, const Node& node, uint32_t opId, const WindowFrame& f,
                         const WindowLayout& layout, std::optional<int64_t> divisor) {
    uint32_t plane = 0;
    VectorBuilder b =
        frameBuilder(opId, divisor ? "average_pool_window" : "max_pool_window", f, layout, node.inputs[0], plane);
    uint32_t result = b.window(VectorOp::Copy, plane, f.taps[0], std::nullopt);
    for (size_t t = 1; t < f.taps.size(); ++t) {
        result = b.window(divisor ? VectorOp::Add : VectorOp::Max, plane, f.taps[t], result);
    }
    if (divisor) result = b.scalar(VectorOp::Mul, result, 1.0f / static_cast<float>(*divisor));
    return finished(b, result, graph, node, layout);
}

std::vector<VectorProblem> depthwiseWindows(const Graph& graph, const Node& node, uint32_t opId, const MemoryConfig& sram) {
    const Value& x = graph.value(node.inputs[0]);
    const Value& w = graph.value(node.inputs[1]);
    const ops::ConvShape conv = ops::convShape(node, x.shape, w.shape);
    if (conv.outChannels != conv.group) return {};  // a channel multiplier: the box kernels
    // Its weights and bias are one value per block row (channel).
    std::optional<WindowFrame> f = windowFrame(x.shape, DType::Fp32, conv.window, 0, false, sram);
    if (!f) return {};
    std::vector<VectorProblem> problems;
    for (const WindowLayout& layout : f->layouts) problems.push_back(depthwiseWindow(graph, node, opId, *f, layout));
    return problems;
}

std::vector<VectorProblem> poolWindows(const Graph& graph, const Node& node, uint32_t opId, const MemoryConfig& sram) {
    const Value& x = graph.value(node.inputs[0]);
    const bool max = node.kind == OpKind::MaxPool;
    // A max of int8 or uint8 values is taken as they are (the vector unit orders them).
    const bool narrow = max && (x.dtype == DType::Int8 || x.dtype == DType::UInt8);
    if ((x.dtype != DType::Fp32 && !narrow) || x.shape.size() < 3) return {};
    const Shape spatial(x.shape.begin() + 2, x.shape.end());
    const ops::WindowGeometry g =
        ops::windowGeometry(node, spatial, ops::intListAttr(node, "kernel_shape"), node.intAttr("ceil_mode", 0) != 0);
    if (!max) {
        // An average over a constant count: no padding, or padding that counts and no window
        // reaching past it (ceil_mode's last windows).
        const bool padded = std::any_of(g.padBegin.begin(), g.padBegin.end(), [](int64_t p) { return p != 0; }) ||
                            std::any_of(g.padEnd.begin(), g.padEnd.end(), [](int64_t p) { return p != 0; });
        if (padded && node.intAttr("count_include_pad", 0) == 0) return {};
        for (size_t i = 0; i < spatial.size(); ++i) {
            const int64_t reach = (g.output[i] - 1) * g.strides[i] + (g.kernel[i] - 1) * g.dilations[i] + 1;
            if (reach > g.padBegin[i] + g.input[i] + g.padEnd[i]) return {};
        }
    }
    // Padding never wins a max: the type's least value (-inf, -128 or 0).
    uint32_t padBits = 0;
    if (x.dtype == DType::Int8) {
        padBits = static_cast<uint8_t>(std::numeric_limits<int8_t>::min());
    } else if (max && x.dtype == DType::Fp32) {
        padBits = fp32Bits(-std::numeric_limits<float>::infinity());
    }
    const std::optional<WindowFrame> f = windowFrame(x.shape, x.dtype, g, padBits, true, sram);
    if (!f) return {};
    std::vector<VectorProblem> problems;
    for (const WindowLayout& layout : f->layouts) {
        problems.push_back(poolWindow(graph, node, opId, *f, layout, max ? std::nullopt : std::optional(elementCount(g.kernel))));
    }
    return problems;
}
}  // namespace

std::vector<VectorProblem> windowProblemsFor(const Graph& graph, const Node& node, uint32_t opId, const MemoryConfig& sram) {
    if (ops::isDepthwiseConvolution(graph, node)) return depthwiseWindows(graph, node, opId, sram);
    if ((node.kind == OpKind::MaxPool && node.outputs.size() == 1) || node.kind == OpKind::AveragePool) {
        return poolWindows(graph, node, opId, sram);
    }
    return {};
}

}  // namespace npusim::compiler
