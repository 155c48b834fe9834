// Resize on the vector unit. Along each axis the output coordinates are cut into pieces (runs
// of one phase, coordinates `step` apart) within which every tap's input index moves by a
// fixed amount and its weight stays the same; a box of pieces, one per axis, is then a kernel
// summing its taps' strided views of X, each scaled by a constant. Extrapolated boxes are
// fills.
#include <cmath>

#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/resize_sampling.h"
#include "compiler/tiling/vector_lowering.h"

namespace npusim::compiler {
namespace {

using isa::VectorOp;

/// A tap of a piece: the input index at the piece's first coordinate, how far it moves per
/// coordinate of the piece, and its weight.
struct PieceTap {
    int64_t index = 0, delta = 0;
    double weight = 0;
};

struct AxisPiece {
    int64_t start = 0, count = 0, step = 1;
    bool extrapolate = false;
    std::vector<PieceTap> taps;  ///< those of non-zero weight
};

/// Whether coordinate o continues `piece` (whose last coordinate is o - piece.step).
bool continues(const AxisSampling& s, const AxisPiece& piece, int64_t o) {
    if (s.extrapolate[o] != piece.extrapolate) return false;
    const int64_t previous = o - piece.step;
    size_t next = 0;
    for (int64_t t = 0; t < s.taps; ++t) {
        const double w = s.weight[o * s.taps + t];
        if (w == 0) continue;
        if (next >= piece.taps.size()) return false;
        const PieceTap& tap = piece.taps[next++];
        const int64_t delta = s.index[o * s.taps + t] - s.index[previous * s.taps + t];
        if (w != tap.weight || (piece.count > 1 && delta != tap.delta) || delta < 0) return false;
    }
    return next == piece.taps.size();
}

AxisPiece startPiece(const AxisSampling& s, int64_t o, int64_t step) {
    AxisPiece piece{o, 1, step, s.extrapolate[o], {}};
    for (int64_t t = 0; t < s.taps; ++t) {
        if (s.weight[o * s.taps + t] != 0) piece.taps.push_back({s.index[o * s.taps + t], 0, s.weight[o * s.taps + t]});
    }
    return piece;
}

/// The pieces of an axis whose coordinates are cut into `step` phases.
std::vector<AxisPiece> piecesWithStep(const AxisSampling& s, int64_t step) {
    const auto outputs = static_cast<int64_t>(s.extrapolate.size());
    std::vector<AxisPiece> pieces;
    for (int64_t r = 0; r < std::min(step, outputs); ++r) {
        pieces.push_back(startPiece(s, r, step));
        for (int64_t o = r + step; o < outputs; o += step) {
            AxisPiece& piece = pieces.back();
            if (continues(s, piece, o)) {
                if (piece.count == 1) {
                    size_t next = 0;
                    for (int64_t t = 0; t < s.taps; ++t) {
                        if (s.weight[o * s.taps + t] == 0) continue;
                        piece.taps[next++].delta = s.index[o * s.taps + t] - s.index[(o - step) * s.taps + t];
                    }
                }
                ++piece.count;
            } else {
                pieces.push_back(startPiece(s, o, step));
            }
        }
    }
    return pieces;
}

/// The fewest pieces over phase counts 1 to 8.
std::vector<AxisPiece> axisPieces(const AxisSampling& s) {
    if (s.isIdentity()) {
        return {{0, static_cast<int64_t>(s.extrapolate.size()), 1, false, {{0, 1, 1.0}}}};
    }
    std::vector<AxisPiece> best;
    for (int64_t step = 1; step <= 8; ++step) {
        std::vector<AxisPiece> pieces = piecesWithStep(s, step);
        if (best.empty() || pieces.size() < best.size()) best = std::move(pieces);
    }
    return best;
}

/// Boxes beyond this many make the resize a long command stream rather than a few kernels.
constexpr size_t kMaxBoxes = 4096;

}  // namespace

std::vector<VectorProblem> resizeProblemsFor(const Graph& graph, const Node& node, uint32_t opId) {
    if (node.kind != OpKind::Resize) return {};
    const std::optional<ResizeSampling> sampling = resizeSampling(graph, node);
    if (!sampling) throw VectorUnsupported("tf_crop_and_resize with a roi computed at run time");
    const Shape& x = graph.value(node.inputs[0]).shape;
    const Shape& y = graph.value(node.outputs[0]).shape;
    const std::vector<int64_t> in = ops::rowMajorStrides(x), out = ops::rowMajorStrides(y);
    std::vector<std::vector<AxisPiece>> pieces;
    Shape counts;
    size_t boxes = 1;
    for (const AxisSampling& axis : sampling->axes) {
        pieces.push_back(axisPieces(axis));
        counts.push_back(static_cast<int64_t>(pieces.back().size()));
        boxes *= pieces.back().size();
    }
    if (boxes > kMaxBoxes) {
        throw VectorUnsupported("a resampling that cuts into " + std::to_string(boxes) + " kernels (at most " +
                                std::to_string(kMaxBoxes) + ")");
    }
    const auto extrapolation = static_cast<float>(sampling->extrapolation);
    std::vector<VectorProblem> problems;
    ops::forEachPosition(counts, [&](const std::vector<int64_t>& choice) {
        IndexSpace space;
        std::vector<int64_t> outputStrides;
        int64_t outputOffset = 0;
        bool fill = false;
        std::vector<const AxisPiece*> box;
        for (size_t a = 0; a < x.size(); ++a) {
            const AxisPiece& piece = pieces[a][static_cast<size_t>(choice[a])];
            box.push_back(&piece);
            space.dims.push_back(piece.count);
            outputStrides.push_back(piece.step * out[a]);
            outputOffset += piece.start * out[a];
            fill = fill || piece.extrapolate;
        }
        space.add(outputStrides);
        // One term per combination of the axes' taps: a strided view of X and a weight.
        std::vector<ViewOrigin> views;
        std::vector<float> weights;
        Shape tapCounts;
        for (const AxisPiece* piece : box) tapCounts.push_back(fill ? 1 : static_cast<int64_t>(piece->taps.size()));
        if (!fill) {
            ops::forEachPosition(tapCounts, [&](const std::vector<int64_t>& taps) {
                int64_t offset = 0;
                double weight = 1;
                std::vector<int64_t> strides;
                for (size_t a = 0; a < box.size(); ++a) {
                    const PieceTap& tap = box[a]->taps[static_cast<size_t>(taps[a])];
                    offset += tap.index * in[a];
                    strides.push_back(tap.delta * in[a]);
                    weight *= tap.weight;
                }
                views.push_back({node.inputs[0], offset});
                weights.push_back(static_cast<float>(weight));
                space.add(strides);
            });
        }
        problems.push_back(stridedProblem(
            graph, opId, fill ? "resize_fill" : "resize", std::move(space), {node.outputs[0], outputOffset}, views,
            [&](VectorBuilder& b, std::span<const Operand> terms) {
                if (terms.empty()) return b.fill(DType::Fp32, fp32Bits(extrapolation));
                auto scaled = [&](size_t t) {
                    return weights[t] == 1.0f ? *terms[t].buffer : b.scalar(VectorOp::Mul, *terms[t].buffer, weights[t]);
                };
                uint32_t sum = scaled(0);
                for (size_t t = 1; t < terms.size(); ++t) sum = b.binary(VectorOp::Add, sum, scaled(t));
                return sum;
            },
            true));
    });
    return problems;
}

}  // namespace npusim::compiler
