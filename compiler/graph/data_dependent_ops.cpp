// The data-dependent ops' type functions and reference semantics: outputs at their bound, zero
// past the actual size, and the size output (compiler/graph/data_dependent.h).
//   NonZero(X): the indices of X's non-zero elements, int64 [rank, n], in row-major order.
//   Compress(X, condition): the slices of X along `axis` (X flattened without one) whose
//   condition is true; a condition shorter than the axis drops the slices past it.
//   Unique(X): the distinct elements (or slices along `axis`), sorted ascending (lexicographically
//   for slices) unless sorted=0 (then in order of first occurrence), with the index of each one's
//   first occurrence, each element's position among them and how often each occurs.
//   NonMaxSuppression(boxes, scores, max_output_boxes_per_class, iou_threshold, score_threshold):
//   per batch and class, boxes by score (higher first, lower index first among equals) above
//   score_threshold, each kept unless its IoU with a kept one exceeds iou_threshold, at most
//   max_output_boxes_per_class of them: rows [batch, class, box], int64.
#include <algorithm>
#include <numeric>

#include "compiler/graph/data_dependent.h"
#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// Sets the size output (the node's last) to an int64 scalar.
void setSizeOutput(Graph& graph, const Node& node) {
    Value& size = graph.value(node.outputs.back());
    size.dtype = DType::Int64;
    size.shape = {};
}

Tensor sizeTensorOf(int64_t size) {
    Tensor t = Tensor::zeros(DType::Int64, {});
    t.as<int64_t>()[0] = size;
    return t;
}

/// Every element as a comparable number (floats widened, integers and bool exact).
std::vector<double> comparable(const Tensor& x) {
    if (isFloat(x.dtype)) return floatValues(x);
    const std::vector<int64_t> ints = integerValues(x);
    return {ints.begin(), ints.end()};
}

// NonZero -------------------------------------------------------------------------------

Shape nonZeroShape(const Shape& x) { return {static_cast<int64_t>(x.size()), elementCount(x)}; }

// Compress and Unique ---------------------------------------------------------------------

/// X as slices along the op's axis, [outer, size, inner], or flattened ([1, n, 1]) without one.
struct SliceGeometry {
    std::optional<int64_t> axis;
    int64_t outer = 1, size = 1, inner = 1;
    /// X's shape with `bound` slices.
    Shape withSlices(const Shape& x, int64_t bound) const {
        if (!axis) return {bound};
        Shape shape = x;
        shape[static_cast<size_t>(*axis)] = bound;
        return shape;
    }
};

SliceGeometry sliceGeometry(const Node& node, const Shape& x) {
    SliceGeometry g;
    if (!node.attributes.contains("axis")) {
        g.size = elementCount(x);
        return g;
    }
    if (x.empty()) opError(node, "an axis needs an input of rank >= 1");
    g.axis = normalizeAxis(node, node.intAttr("axis", 0), static_cast<int64_t>(x.size()));
    for (int64_t d = 0; d < static_cast<int64_t>(x.size()); ++d) {
        if (d < *g.axis) g.outer *= x[d];
        if (d > *g.axis) g.inner *= x[d];
    }
    g.size = x[static_cast<size_t>(*g.axis)];
    return g;
}

/// Compress keeps at most as many slices as its condition is long.
int64_t compressBound(const Node& node, const SliceGeometry& g, const Shape& condition) {
    if (condition.size() != 1) opError(node, "condition must be 1-D, got " + shapeString(condition));
    return std::min(g.size, condition[0]);
}

// NonMaxSuppression ----------------------------------------------------------------------

/// The bound keeps every box of every class: max_output_boxes_per_class may be an input.
struct NmsGeometry {
    int64_t batches = 0, classes = 0, boxes = 0;
    int64_t bound() const { return batches * classes * boxes; }
};

NmsGeometry nmsGeometry(const Node& node, const Shape& boxes, const Shape& scores) {
    if (boxes.size() != 3 || boxes[2] != 4) opError(node, "boxes must be [batches, boxes, 4], got " + shapeString(boxes));
    if (scores.size() != 3 || scores[0] != boxes[0] || scores[2] != boxes[1]) {
        opError(node, "scores must be [batches, classes, boxes] = [" + std::to_string(boxes[0]) + ", C, " +
                          std::to_string(boxes[1]) + "], got " + shapeString(scores));
    }
    return {boxes[0], scores[1], boxes[1]};
}

/// The corners (y1, x1, y2, x2 with y1 <= y2, x1 <= x2) of box `b`.
std::array<float, 4> corners(std::span<const float> boxes, int64_t b, bool centerPoint) {
    const float* box = boxes.data() + b * 4;
    if (centerPoint) {  // [x_center, y_center, width, height]
        const float halfWidth = box[2] / 2, halfHeight = box[3] / 2;
        return {box[1] - halfHeight, box[0] - halfWidth, box[1] + halfHeight, box[0] + halfWidth};
    }
    return {std::min(box[0], box[2]), std::min(box[1], box[3]), std::max(box[0], box[2]), std::max(box[1], box[3])};
}

/// Whether boxes a and b overlap by more than `threshold` (IoU, in fp32); boxes without area
/// suppress nothing.
bool suppresses(const std::array<float, 4>& a, const std::array<float, 4>& b, float threshold) {
    const float areaA = (a[2] - a[0]) * (a[3] - a[1]), areaB = (b[2] - b[0]) * (b[3] - b[1]);
    if (areaA <= 0 || areaB <= 0) return false;
    const float height = std::max(0.0f, std::min(a[2], b[2]) - std::max(a[0], b[0]));
    const float width = std::max(0.0f, std::min(a[3], b[3]) - std::max(a[1], b[1]));
    const float intersection = height * width;
    return intersection / (areaA + areaB - intersection) > threshold;
}

}  // namespace

void inferNonZero(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    setOutput(graph, node, DType::Int64, nonZeroShape(x.shape));
    setSizeOutput(graph, node);
}

std::vector<Tensor> interpretNonZero(const Node&, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const std::vector<double> values = comparable(x);
    const Shape shape = nonZeroShape(x.shape);
    Tensor out = Tensor::zeros(DType::Int64, shape);
    const std::span<int64_t> indices = out.as<int64_t>();
    int64_t count = 0, flat = 0;
    forEachPosition(x.shape, [&](const std::vector<int64_t>& position) {
        if (values[static_cast<size_t>(flat++)] != 0) {
            for (size_t d = 0; d < position.size(); ++d) indices[d * static_cast<size_t>(shape[1]) + count] = position[d];
            ++count;
        }
    });
    return {std::move(out), sizeTensorOf(count)};
}

void inferCompress(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& condition = graph.value(node.inputs[1]);
    requireDType(node, "condition", condition.dtype, {DType::Bool});
    const SliceGeometry g = sliceGeometry(node, x.shape);
    setOutput(graph, node, x.dtype, g.withSlices(x.shape, compressBound(node, g, condition.shape)));
    setSizeOutput(graph, node);
}

std::vector<Tensor> interpretCompress(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const SliceGeometry g = sliceGeometry(node, x.shape);
    const int64_t bound = compressBound(node, g, inputs[1]->shape);
    const std::span<const uint8_t> condition = inputs[1]->as<uint8_t>();
    std::vector<int64_t> sources;
    int64_t count = 0;
    for (int64_t s = 0; s < bound; ++s) count += condition[static_cast<size_t>(s)] != 0;
    for (int64_t o = 0; o < g.outer; ++o) {
        for (int64_t s = 0; s < bound; ++s) {
            if (condition[static_cast<size_t>(s)] == 0) continue;
            for (int64_t n = 0; n < g.inner; ++n) sources.push_back((o * g.size + s) * g.inner + n);
        }
        // Padding: zero slices up to the bound.
        for (int64_t pad = count; pad < bound; ++pad) {
            for (int64_t n = 0; n < g.inner; ++n) sources.push_back(-1);
        }
    }
    Tensor out = Tensor::zeros(x.dtype, g.withSlices(x.shape, bound));
    const size_t elem = dtypeSize(x.dtype);
    for (size_t i = 0; i < sources.size(); ++i) {
        if (sources[i] >= 0) std::copy_n(x.bytes.data() + sources[i] * elem, elem, out.bytes.data() + i * elem);
    }
    return {std::move(out), sizeTensorOf(count)};
}

void inferUnique(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    requireDType(node, "X", x.dtype, kNumericDTypes);
    const SliceGeometry g = sliceGeometry(node, x.shape);
    const Shape counted{g.size};
    const std::pair<DType, Shape> types[] = {{x.dtype, g.withSlices(x.shape, g.size)}, {DType::Int64, counted}, {DType::Int64, counted}, {DType::Int64, counted}};
    for (size_t i = 0; i < 4; ++i) {
        Value& out = graph.value(node.outputs[i]);
        out.dtype = types[i].first;
        out.shape = types[i].second;
    }
    setSizeOutput(graph, node);
}

std::vector<Tensor> interpretUnique(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const SliceGeometry g = sliceGeometry(node, x.shape);
    const std::vector<double> values = comparable(x);
    const auto element = [&](int64_t slice, int64_t o, int64_t n) { return values[static_cast<size_t>((o * g.size + slice) * g.inner + n)]; };
    // -1, 0, 1 as slice a orders before, equal to or after slice b (row-major over outer, inner).
    const auto order = [&](int64_t a, int64_t b) {
        for (int64_t o = 0; o < g.outer; ++o) {
            for (int64_t n = 0; n < g.inner; ++n) {
                if (element(a, o, n) != element(b, o, n)) return element(a, o, n) < element(b, o, n) ? -1 : 1;
            }
        }
        return 0;
    };
    std::vector<int64_t> firsts;  // the first occurrence of each distinct slice, in order of occurrence
    std::vector<int64_t> inverse(static_cast<size_t>(g.size)), counts;
    for (int64_t s = 0; s < g.size; ++s) {
        const auto seen = std::find_if(firsts.begin(), firsts.end(), [&](int64_t f) { return order(f, s) == 0; });
        if (seen == firsts.end()) {
            firsts.push_back(s);
            counts.push_back(1);
        } else {
            ++counts[static_cast<size_t>(seen - firsts.begin())];
        }
    }
    std::vector<size_t> rank(firsts.size());
    std::iota(rank.begin(), rank.end(), 0);
    if (node.intAttr("sorted", 1) != 0) {
        std::sort(rank.begin(), rank.end(), [&](size_t a, size_t b) { return order(firsts[a], firsts[b]) < 0; });
    }
    const auto count = static_cast<int64_t>(firsts.size());
    Tensor indices = Tensor::zeros(DType::Int64, {g.size}), countsOut = Tensor::zeros(DType::Int64, {g.size});
    std::vector<int64_t> sources;  // Y's elements, as indices into X (-1: padding)
    for (int64_t o = 0; o < g.outer; ++o) {
        for (int64_t k = 0; k < g.size; ++k) {
            for (int64_t n = 0; n < g.inner; ++n) sources.push_back(k < count ? (o * g.size + firsts[rank[static_cast<size_t>(k)]]) * g.inner + n : -1);
        }
    }
    for (int64_t k = 0; k < count; ++k) {
        indices.as<int64_t>()[static_cast<size_t>(k)] = firsts[rank[static_cast<size_t>(k)]];
        countsOut.as<int64_t>()[static_cast<size_t>(k)] = counts[rank[static_cast<size_t>(k)]];
    }
    for (int64_t s = 0; s < g.size; ++s) {
        for (int64_t k = 0; k < count; ++k) {
            if (order(firsts[rank[static_cast<size_t>(k)]], s) == 0) inverse[static_cast<size_t>(s)] = k;
        }
    }
    Tensor y = Tensor::zeros(x.dtype, g.withSlices(x.shape, g.size));
    const size_t elem = dtypeSize(x.dtype);
    for (size_t i = 0; i < sources.size(); ++i) {
        if (sources[i] >= 0) std::copy_n(x.bytes.data() + sources[i] * elem, elem, y.bytes.data() + i * elem);
    }
    return {std::move(y), std::move(indices), integerTensor(DType::Int64, {g.size}, inverse), std::move(countsOut),
            sizeTensorOf(count)};
}

void inferNonMaxSuppression(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& boxes = graph.value(node.inputs[0]);
    const Value& scores = graph.value(node.inputs[1]);
    requireDType(node, "boxes", boxes.dtype, {DType::Fp32});
    requireDType(node, "scores", scores.dtype, {DType::Fp32});
    if (const Value* max = optionalInput(graph, node, 2)) requireDType(node, "max_output_boxes_per_class", max->dtype, {DType::Int64});
    for (size_t i : {3, 4}) {
        if (const Value* threshold = optionalInput(graph, node, i)) requireDType(node, i == 3 ? "iou_threshold" : "score_threshold", threshold->dtype, {DType::Fp32});
    }
    setOutput(graph, node, DType::Int64, {nmsGeometry(node, boxes.shape, scores.shape).bound(), 3});
    setSizeOutput(graph, node);
}

std::vector<Tensor> interpretNonMaxSuppression(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& boxes = *inputs[0];
    const Tensor& scores = *inputs[1];
    const NmsGeometry g = nmsGeometry(node, boxes.shape, scores.shape);
    const int64_t keep = inputs.size() > 2 && inputs[2] ? std::clamp<int64_t>(inputs[2]->as<int64_t>()[0], 0, g.boxes) : 0;
    const float iouThreshold = inputs.size() > 3 && inputs[3] ? inputs[3]->as<float>()[0] : 0.0f;
    const bool hasScoreThreshold = inputs.size() > 4 && inputs[4];
    const float scoreThreshold = hasScoreThreshold ? inputs[4]->as<float>()[0] : 0.0f;
    const bool centerPoint = node.intAttr("center_point_box", 0) != 0;
    std::vector<int64_t> rows;
    for (int64_t b = 0; b < g.batches; ++b) {
        const std::span<const float> batchBoxes = boxes.as<float>().subspan(static_cast<size_t>(b * g.boxes * 4));
        for (int64_t c = 0; c < g.classes; ++c) {
            const std::span<const float> classScores = scores.as<float>().subspan(static_cast<size_t>((b * g.classes + c) * g.boxes));
            std::vector<int64_t> order(static_cast<size_t>(g.boxes));
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return classScores[x] > classScores[y]; });
            std::vector<int64_t> kept;
            for (int64_t candidate : order) {
                if (static_cast<int64_t>(kept.size()) >= keep) break;
                if (hasScoreThreshold && !(classScores[candidate] > scoreThreshold)) continue;
                const auto box = corners(batchBoxes, candidate, centerPoint);
                if (std::none_of(kept.begin(), kept.end(), [&](int64_t k) { return suppresses(corners(batchBoxes, k, centerPoint), box, iouThreshold); })) {
                    kept.push_back(candidate);
                    rows.insert(rows.end(), {b, c, candidate});
                }
            }
        }
    }
    const int64_t bound = g.bound();
    const auto count = static_cast<int64_t>(rows.size() / 3);
    rows.resize(static_cast<size_t>(bound * 3), 0);
    return {integerTensor(DType::Int64, {bound, 3}, rows), sizeTensorOf(count)};
}

}  // namespace npusim::compiler::ops
