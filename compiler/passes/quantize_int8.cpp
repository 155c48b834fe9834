// quantize-int8: post-training quantisation (`--precision int8 --calibrate-inputs DIR`).
//
// Which ops run int8: every fp32 Conv with constant weights that is not depthwise (the vector
// unit runs those whole, in fp32), every MatMul, and every Gemm whose B and C are constants, but
// those an override keeps at fp32. Their weights are quantised symmetrically per output channel
// (scale max|w| / 127, zero point 0), their biases to int32 at the scale of the product; their
// activations per tensor, asymmetric (the whole int8 range for the calibrated [min, max],
// widened to hold 0) or symmetric (zero point 0).
//
// The calibrated ranges: activation_ranges.cpp.
//
// The rewrite keeps results int8 between quantised ops: a quantised op's result is stored int8
// and its int8 readers (quantised ops, reshapes and transposes, which move it unchanged, and max
// pools, which pick among its values by order) take it as it is; a Relu, or a Clip from 0, that
// alone reads it is absorbed into its range (zero point -128 holds no negative value). Only fp32
// readers read it through a DequantizeLinear. A value an fp32 op computes and both a quantised op and fp32 ops read (a
// residual block's sum) is quantised once, and its fp32 readers take the dequantised int8
// value, as a runtime that keeps every activation int8 does: the fp32 value is never stored.
//
// The integer ops: a convolution becomes QLinearConv (convolution-to-gemm lowers it to Im2Col
// and an integer GEMM, padding with the zero point); a MatMul or Gemm becomes MatMulInteger,
// the int32 bias added, the sums converted to fp32, multiplied by s_x * s_w / s_y (per output
// channel) and quantised with y's zero point, as QLinearMatMul's reference does. The GEMM
// runs that requantisation as its epilogue and stores int8.
#include "compiler/passes/quantize_int8.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "compiler/graph/convolution.h"
#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_table.h"
#include "compiler/passes/activation_ranges.h"
#include "compiler/passes/graph_rewriter.h"
#include "arch/error.h"

namespace npusim::compiler {
namespace {

constexpr int64_t kOnnxFloat = 1;

/// What the rewrite makes of a node: a quantised op, a clamp absorbed into its producer's
/// range, an op moving int8 values unchanged, or an fp32 op as before.
enum class Role { Fp32, Gemm, Absorbed, Passthrough };

/// Whether the op computes on int8 values as it does on the fp32 values they stand for: it moves
/// them unchanged, or (a max pool without indices) picks among them by order, which quantising
/// keeps.
bool movesUnchanged(const Node& node) {
    switch (node.kind) {
        case OpKind::MaxPool: return node.outputs.size() == 1;
        case OpKind::Reshape:
        case OpKind::Flatten:
        case OpKind::Squeeze:
        case OpKind::Unsqueeze:
        case OpKind::Transpose:
        case OpKind::Slice:
        case OpKind::Split:
        case OpKind::Identity: return true;
        default: return false;
    }
}

const Tensor* constantOf(const Graph& graph, const Node& node, size_t slot) {
    if (slot >= node.inputs.size() || node.inputs[slot] == kNoValue) return nullptr;
    const Value& value = graph.value(node.inputs[slot]);
    return value.constant ? &*value.constant : nullptr;
}

bool fp32(const Graph& graph, ValueId id) { return id != kNoValue && graph.value(id).dtype == DType::Fp32; }

/// The data slots of a node that runs int8 (its activations): a MatMul's operands that are not
/// constant, a Conv's or Gemm's input.
std::vector<size_t> dataSlots(const Graph& graph, const Node& node) {
    if (node.kind == OpKind::MatMul) {
        std::vector<size_t> slots = {0};
        if (!constantOf(graph, node, 1)) slots.push_back(1);
        return slots;
    }
    return {0};
}

/// Whether the op can run int8: fp32 operands, constant weights (and bias) in a form the
/// integer ops take.
bool quantizable(const Graph& graph, const Node& node) {
    if (!fp32(graph, node.inputs[0]) || !fp32(graph, node.outputs[0]) || constantOf(graph, node, 0)) return false;
    switch (node.kind) {
        case OpKind::Conv: {
            const Tensor* w = constantOf(graph, node, 1);
            const bool biasOk = node.inputs.size() < 3 || node.inputs[2] == kNoValue || constantOf(graph, node, 2);
            return w && w->dtype == DType::Fp32 && biasOk && !ops::isDepthwiseConvolution(graph, node);
        }
        case OpKind::MatMul: {
            if (!fp32(graph, node.inputs[1])) return false;
            const Tensor* b = constantOf(graph, node, 1);
            return !b || b->shape.size() == 2;
        }
        case OpKind::Gemm: {
            const Tensor* b = constantOf(graph, node, 1);
            const Tensor* c = constantOf(graph, node, 2);
            const bool hasC = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
            if (!b || b->dtype != DType::Fp32 || node.intAttr("transA", 0) != 0 || (hasC && !c)) return false;
            const int64_t n = b->shape[node.intAttr("transB", 0) ? 0 : 1];
            return !c || elementCount(c->shape) == 1 || (elementCount(c->shape) == n && c->shape.back() == n);
        }
        default: return false;
    }
}

/// Whether a Relu, or a Clip whose lower bound is 0, can be absorbed into its input's range.
bool clampsAtZero(const Graph& graph, const Node& node) {
    if (node.kind == OpKind::Relu) return true;
    if (node.kind != OpKind::Clip) return false;
    if (node.attributes.contains("min")) return node.floatAttr("min", -1) == 0.0;
    const Tensor* low = constantOf(graph, node, 1);
    return low && low->valueAt(0) == 0.0;
}

class Quantizer {
public:
    Quantizer(Graph& graph, const PrecisionOptions& options) : graph_(graph), options_(options) {
        readers_.resize(graph.values.size());
        for (size_t n = 0; n < graph.nodes.size(); ++n) {
            const Node& node = graph.nodes[n];
            for (size_t slot = 0; slot < node.inputs.size(); ++slot) {
                if (node.inputs[slot] != kNoValue) readers_[node.inputs[slot]].push_back({n, slot});
            }
        }
        outputs_.insert(graph.outputs.begin(), graph.outputs.end());
        decideRoles();
    }

    /// The values whose ranges the rewrite needs.
    const std::set<ValueId>& calibrated() const { return calibrated_; }

    void rewrite(const std::map<ValueId, ActivationRange>& ranges);

private:
    struct Int8Value {
        ValueId q = kNoValue;
        QuantParams params;
    };

    bool keptWide(const Node& node) const {
        auto kept = options_.overrides.find(node.name);
        if (kept == options_.overrides.end()) kept = options_.overrides.find(std::string(opInfo(node.kind).name));
        return kept != options_.overrides.end() && kept->second != Precision::Int8;
    }
    bool soleReader(ValueId id, size_t node) const {
        return !outputs_.contains(id) && readers_[id].size() == 1 && readers_[id][0].first == node;
    }
    /// Whether reader (node, slot) takes the value int8.
    bool readsInt8(size_t node, size_t slot) const {
        switch (roles_[node]) {
            case Role::Gemm: {
                const std::vector<size_t> slots = dataSlots(graph_, graph_.nodes[node]);
                return std::find(slots.begin(), slots.end(), slot) != slots.end();
            }
            case Role::Absorbed: return true;
            case Role::Passthrough: return slot == 0;
            case Role::Fp32: return false;
        }
        return false;
    }
    bool readByFloat(ValueId id) const {
        if (outputs_.contains(id)) return true;
        return std::any_of(readers_[id].begin(), readers_[id].end(),
                           [&](const auto& reader) { return !readsInt8(reader.first, reader.second); });
    }

    void decideRoles();
    /// The quantised op whose result `node` (node `n`) can be absorbed into: a Relu or a Clip
    /// from 0 (into its range) or, before those, an Add of a constant vector of one value per
    /// output column after a MatMul (into its int32 bias), as the result's sole reader.
    std::optional<size_t> absorbingGemm(const Node& node, size_t n) const;
    ValueId int8Input(GraphRewriter& r, ValueId id);
    QuantParams paramsOf(ValueId id) const;
    /// A DequantizeLinear of `id`'s int8 form, into `output` (a new value when kNoValue).
    ValueId dequantize(GraphRewriter& r, ValueId id, ValueId output);
    ValueId scalar(GraphRewriter& r, const std::string& name, float value);
    ValueId zeroPoint(GraphRewriter& r, const std::string& name, int8_t value);
    Int8Value convolution(GraphRewriter& r, const Node& node, const QuantParams& out, bool floatResult);
    /// The integer product, its bias and requantisation to `out`; with `floatResult`, the sums
    /// scaled to fp32 into the node's own result instead.
    Int8Value matmul(GraphRewriter& r, const Node& node, size_t n, const QuantParams& out, bool floatResult);

    Graph& graph_;
    const PrecisionOptions& options_;
    std::vector<std::vector<std::pair<size_t, size_t>>> readers_;  ///< per value: (node, slot)
    std::set<ValueId> outputs_;
    std::vector<Role> roles_;
    /// Per quantised op, the value its int8 result stands for (its own, or an absorbed clamp's).
    std::map<size_t, ValueId> resultOf_;
    /// Values an fp32 op computes that a quantised op and fp32 ops read: quantised once after
    /// their producer, the fp32 readers reading them dequantised.
    std::set<ValueId> requantized_;
    std::set<ValueId> calibrated_;
    /// The quantised op whose result each value is (its own or an absorbed op's).
    std::map<ValueId, size_t> owner_;
    /// Quantised ops that absorbed a clamp, and MatMuls that absorbed a bias Add (its constant).
    std::set<size_t> clamped_;
    std::map<size_t, ValueId> biasOf_;
    /// The quantised ops only fp32 ops or the graph's outputs read: their sums are scaled to
    /// fp32, never quantised.
    std::set<size_t> floatResults_;
    /// Values an fp32 op or the graph's outputs read (decided before the rewrite moves the nodes).
    std::set<ValueId> floatRead_;
    const std::map<ValueId, ActivationRange>* ranges_ = nullptr;
    std::map<ValueId, Int8Value> int8_;       ///< the int8 form of fp32 values
    std::map<ValueId, ValueId> dequantized_;  ///< requantized_ values, as their fp32 readers take them
};

void Quantizer::decideRoles() {
    roles_.assign(graph_.nodes.size(), Role::Fp32);
    std::set<ValueId> int8;  // values an int8 op produces
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
        const Node& node = graph_.nodes[n];
        if (keptWide(node)) continue;
        if (quantizable(graph_, node)) {
            roles_[n] = Role::Gemm;
            resultOf_[n] = node.outputs[0];
            owner_[node.outputs[0]] = n;
            int8.insert(node.outputs[0]);
            continue;
        }
        if (const std::optional<size_t> gemm = absorbingGemm(node, n)) {
            const ValueId in = resultOf_.at(*gemm);
            roles_[n] = Role::Absorbed;
            if (node.kind == OpKind::Add) {
                biasOf_[*gemm] = node.inputs[node.inputs[0] == in ? 1 : 0];
            } else {
                clamped_.insert(*gemm);
            }
            resultOf_[*gemm] = node.outputs[0];
            owner_.erase(in);
            owner_[node.outputs[0]] = *gemm;
            int8.erase(in);
            int8.insert(node.outputs[0]);
            continue;
        }
        const ValueId in = node.inputs.empty() ? kNoValue : node.inputs[0];
        if (in != kNoValue && int8.contains(in) && movesUnchanged(node)) {
            roles_[n] = Role::Passthrough;
            int8.insert(node.outputs.begin(), node.outputs.end());
        }
    }
    for (ValueId id = 0; id < graph_.values.size(); ++id) {
        if (readByFloat(id)) floatRead_.insert(id);
    }
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
        if (roles_[n] != Role::Gemm) continue;
        const ValueId result = resultOf_.at(n);
        const bool int8Reader = std::any_of(readers_[result].begin(), readers_[result].end(),
                                            [&](const auto& reader) { return readsInt8(reader.first, reader.second); });
        if (!int8Reader && !clamped_.contains(n)) {
            floatResults_.insert(n);
        } else {
            calibrated_.insert(result);
        }
        for (size_t slot : dataSlots(graph_, graph_.nodes[n])) {
            const ValueId x = graph_.nodes[n].inputs[slot];
            if (int8.contains(x)) continue;
            calibrated_.insert(x);
            if (graph_.value(x).producer >= 0 && floatRead_.contains(x)) requantized_.insert(x);
        }
    }
}

std::optional<size_t> Quantizer::absorbingGemm(const Node& node, size_t n) const {
    for (ValueId in : node.inputs) {
        const auto owner = owner_.find(in);
        if (owner == owner_.end() || !soleReader(in, n)) continue;
        const size_t gemm = owner->second;
        if (clampsAtZero(graph_, node) && node.inputs[0] == in) {
            // Worth it only for a result an int8 op reads: one only fp32 ops read stays fp32,
            // the clamp with it.
            const ValueId out = node.outputs[0];
            const bool int8Reader = std::any_of(readers_[out].begin(), readers_[out].end(), [&](const auto& reader) {
                const Node& next = graph_.nodes[reader.first];
                if (keptWide(next)) return false;
                if (movesUnchanged(next)) return reader.second == 0;
                const std::vector<size_t> slots = dataSlots(graph_, next);
                return quantizable(graph_, next) && std::find(slots.begin(), slots.end(), reader.second) != slots.end();
            });
            return int8Reader ? std::optional(gemm) : std::nullopt;
        }
        const Node& op = graph_.nodes[gemm];
        if (node.kind != OpKind::Add || op.kind != OpKind::MatMul || clamped_.contains(gemm) || biasOf_.contains(gemm)) {
            return std::nullopt;
        }
        const Tensor* b = constantOf(graph_, op, 1);
        const Tensor* bias = constantOf(graph_, node, node.inputs[0] == in ? 1 : 0);
        if (!b || !bias || bias->dtype != DType::Fp32 || bias->shape.empty() || bias->shape.back() != b->shape[1] ||
            bias->elementCount() != b->shape[1] || bias->shape.size() > graph_.value(in).shape.size()) {
            return std::nullopt;
        }
        return gemm;
    }
    return std::nullopt;
}

QuantParams Quantizer::paramsOf(ValueId id) const {
    return activationParams(ranges_->at(id), options_.quantization.scheme);
}

ValueId Quantizer::scalar(GraphRewriter& r, const std::string& name, float value) {
    Tensor t = Tensor::zeros(DType::Fp32, {});
    t.as<float>()[0] = value;
    return r.constant(name, std::move(t));
}

ValueId Quantizer::zeroPoint(GraphRewriter& r, const std::string& name, int8_t value) {
    Tensor t = Tensor::zeros(DType::Int8, {});
    t.as<int8_t>()[0] = value;
    return r.constant(name, std::move(t));
}

/// The int8 form of `id`: the one an int8 op made, or a QuantizeLinear of it at its range.
ValueId Quantizer::int8Input(GraphRewriter& r, ValueId id) {
    if (const auto known = int8_.find(id); known != int8_.end()) return known->second.q;
    const std::string name = graph_.value(id).name;
    Int8Value value{kNoValue, paramsOf(id)};
    value.q = r.add(OpKind::QuantizeLinear, name + ".quantize",
                    {id, scalar(r, name + ".scale", value.params.scale), zeroPoint(r, name + ".zero_point", value.params.zeroPoint)})[0];
    int8_[id] = value;
    return value.q;
}

ValueId Quantizer::dequantize(GraphRewriter& r, ValueId id, ValueId output) {
    const Int8Value& value = int8_.at(id);
    const std::string base = graph_.value(value.q).name;
    return r.add(OpKind::DequantizeLinear, graph_.value(id).name + ".dequantize",
                 {value.q, scalar(r, base + ".scale", value.params.scale), zeroPoint(r, base + ".zero_point", value.params.zeroPoint)},
                 {}, output == kNoValue ? std::vector<ValueId>{} : std::vector<ValueId>{output})[0];
}

/// Weights quantised symmetrically per slice of `slices` elements along their outermost
/// (`outer`) or innermost axis: the int8 tensor and a scale per slice.
struct QuantizedWeights {
    Tensor values;
    std::vector<float> scales;
};

QuantizedWeights quantizeWeights(const Tensor& w, int64_t channels, bool channelOutermost) {
    const std::span<const float> in = w.as<float>();
    const int64_t count = w.elementCount(), inner = count / channels;
    const auto channelOf = [&](int64_t i) { return channelOutermost ? i / inner : i % channels; };
    QuantizedWeights q{Tensor::zeros(DType::Int8, w.shape), std::vector<float>(static_cast<size_t>(channels), 0.0f)};
    for (int64_t i = 0; i < count; ++i) {
        float& scale = q.scales[static_cast<size_t>(channelOf(i))];
        scale = std::max(scale, std::fabs(in[static_cast<size_t>(i)]));
    }
    for (float& scale : q.scales) scale = scale > 0 ? scale / 127.0f : 1.0f;
    const std::span<int8_t> out = q.values.as<int8_t>();
    for (int64_t i = 0; i < count; ++i) {
        const float scaled = in[static_cast<size_t>(i)] / q.scales[static_cast<size_t>(channelOf(i))];
        out[static_cast<size_t>(i)] = static_cast<int8_t>(std::clamp(std::nearbyint(scaled), -127.0f, 127.0f));
    }
    return q;
}

Tensor floatVector(std::span<const float> values) {
    Tensor t = Tensor::zeros(DType::Fp32, {static_cast<int64_t>(values.size())});
    std::copy(values.begin(), values.end(), t.as<float>().begin());
    return t;
}

/// bias[c] / (scale[c]) rounded to int32: a bias at the scale of the integer product.
Tensor int32Bias(std::span<const double> bias, std::span<const float> productScales) {
    Tensor t = Tensor::zeros(DType::Int32, {static_cast<int64_t>(productScales.size())});
    for (size_t c = 0; c < productScales.size(); ++c) {
        const double b = bias.size() == 1 ? bias[0] : bias[c];
        t.as<int32_t>()[c] = static_cast<int32_t>(std::clamp(std::nearbyint(b / productScales[c]),
                                                             double{std::numeric_limits<int32_t>::min()},
                                                             double{std::numeric_limits<int32_t>::max()}));
    }
    return t;
}

Quantizer::Int8Value Quantizer::convolution(GraphRewriter& r, const Node& node, const QuantParams& out, bool floatResult) {
    const ValueId x = int8Input(r, node.inputs[0]);
    const QuantParams in = int8_.at(node.inputs[0]).params;
    const Tensor& w = *constantOf(graph_, node, 1);
    const int64_t channels = w.shape[0];
    const QuantizedWeights weights = quantizeWeights(w, channels, true);
    const std::string& name = node.name;
    std::vector<float> productScales(weights.scales.size());
    for (size_t c = 0; c < productScales.size(); ++c) productScales[c] = in.scale * weights.scales[c];
    if (floatResult) {  // ConvInteger, its bias, and the sums scaled to fp32, per output channel
        Shape perChannel(w.shape.size() - 1, 1);
        perChannel[0] = channels;
        ValueId product = r.add(OpKind::ConvInteger, name + ".product",
                                {x, r.constant(name + ".w_int8", weights.values), zeroPoint(r, name + ".x_zero_point", in.zeroPoint),
                                 zeroPoint(r, name + ".w_zero_point", 0)},
                                node.attributes)[0];
        if (const Tensor* bias = constantOf(graph_, node, 2)) {
            Tensor b = int32Bias(ops::floatValues(*bias), productScales);
            b.shape = perChannel;
            product = r.add(OpKind::Add, name + ".bias", {product, r.constant(name + ".bias_int32", std::move(b))})[0];
        }
        const ValueId real = r.add(OpKind::Cast, name + ".to_float", {product}, {{"to", kOnnxFloat}})[0];
        Tensor scales = floatVector(productScales);
        scales.shape = perChannel;
        r.add(OpKind::Mul, name + ".rescale", {real, r.constant(name + ".scales", std::move(scales))}, {}, {node.outputs[0]});
        return {};
    }
    std::vector<ValueId> inputs = {x,
                                   scalar(r, name + ".x_scale", in.scale),
                                   zeroPoint(r, name + ".x_zero_point", in.zeroPoint),
                                   r.constant(name + ".w_int8", weights.values),
                                   r.constant(name + ".w_scale", floatVector(weights.scales)),
                                   zeroPoint(r, name + ".w_zero_point", 0),
                                   scalar(r, name + ".y_scale", out.scale),
                                   zeroPoint(r, name + ".y_zero_point", out.zeroPoint)};
    if (const Tensor* bias = constantOf(graph_, node, 2)) {
        inputs.push_back(r.constant(name + ".bias_int32", int32Bias(ops::floatValues(*bias), productScales)));
    }
    return {r.add(OpKind::QLinearConv, name, inputs, node.attributes)[0], out};
}

Quantizer::Int8Value Quantizer::matmul(GraphRewriter& r, const Node& node, size_t n, const QuantParams& out, bool floatResult) {
    const std::string& name = node.name;
    const ValueId a = int8Input(r, node.inputs[0]);
    const QuantParams aParams = int8_.at(node.inputs[0]).params;
    std::vector<ValueId> productInputs = {a};
    std::vector<float> bScales;
    std::vector<double> bias;
    float alpha = 1.0f;
    if (const Tensor* b = constantOf(graph_, node, 1)) {
        // One scale per output channel: B's columns, or a transposed B's rows, the int8
        // weights then transposed into MatMulInteger's [K, N] (folded: a constant).
        const bool transposed = node.kind == OpKind::Gemm && node.intAttr("transB", 0) != 0;
        QuantizedWeights weights = quantizeWeights(*b, b->shape[transposed ? 0 : 1], transposed);
        ValueId w = r.constant(name + ".w_int8", std::move(weights.values));
        if (transposed) w = r.add(OpKind::Transpose, name + ".w_int8_kn", {w}, {{"perm", std::vector<int64_t>{1, 0}}})[0];
        productInputs.push_back(w);
        bScales = std::move(weights.scales);
        if (const auto absorbed = biasOf_.find(n); absorbed != biasOf_.end()) {
            bias = ops::floatValues(*graph_.value(absorbed->second).constant);
        }
        if (node.kind == OpKind::Gemm) {
            alpha = static_cast<float>(node.floatAttr("alpha", 1.0));
            if (const Tensor* c = constantOf(graph_, node, 2)) {
                bias = ops::floatValues(*c);
                for (double& v : bias) v *= node.floatAttr("beta", 1.0) / alpha;
            }
        }
    } else {
        productInputs.push_back(int8Input(r, node.inputs[1]));
        bScales = {int8_.at(node.inputs[1]).params.scale};
    }
    productInputs.push_back(zeroPoint(r, name + ".a_zero_point", aParams.zeroPoint));
    if (!constantOf(graph_, node, 1)) productInputs.push_back(zeroPoint(r, name + ".b_zero_point", int8_.at(node.inputs[1]).params.zeroPoint));
    ValueId product = r.add(OpKind::MatMulInteger, name + ".product", productInputs)[0];
    std::vector<float> productScales(bScales.size()), multipliers(bScales.size());
    for (size_t c = 0; c < bScales.size(); ++c) {
        productScales[c] = aParams.scale * bScales[c];
        multipliers[c] = floatResult ? alpha * productScales[c] : alpha * productScales[c] / out.scale;
    }
    if (!bias.empty()) product = r.add(OpKind::Add, name + ".bias", {product, r.constant(name + ".bias_int32", int32Bias(bias, productScales))})[0];
    const ValueId real = r.add(OpKind::Cast, name + ".to_float", {product}, {{"to", kOnnxFloat}})[0];
    const ValueId multiplier = multipliers.size() == 1 ? scalar(r, name + ".multiplier", multipliers[0])
                                                      : r.constant(name + ".multiplier", floatVector(multipliers));
    if (floatResult) {
        r.add(OpKind::Mul, name + ".rescale", {real, multiplier}, {}, {resultOf_.at(n)});
        return {};
    }
    const ValueId scaled = r.add(OpKind::Mul, name + ".rescale", {real, multiplier})[0];
    return {r.add(OpKind::QuantizeLinear, name + ".requantize",
                  {scaled, scalar(r, name + ".one", 1.0f), zeroPoint(r, name + ".y_zero_point", out.zeroPoint)})[0],
            out};
}

void Quantizer::rewrite(const std::map<ValueId, ActivationRange>& ranges) {
    ranges_ = &ranges;
    GraphRewriter r(graph_);
    size_t index = 0;
    r.run([&](const Node& node) {
        const size_t n = index++;
        switch (roles_[n]) {
            case Role::Absorbed: return true;  // its quantised producer wrote its result
            case Role::Gemm: {
                if (floatResults_.contains(n)) {
                    if (node.kind == OpKind::Conv) {
                        convolution(r, node, {}, true);
                    } else {
                        matmul(r, node, n, {}, true);
                    }
                    return true;
                }
                const ValueId result = resultOf_.at(n);
                const QuantParams out = paramsOf(result);
                const Int8Value value = node.kind == OpKind::Conv ? convolution(r, node, out, false) : matmul(r, node, n, out, false);
                int8_[result] = value;
                if (floatRead_.contains(result)) dequantize(r, result, result);
                return true;
            }
            case Role::Passthrough: {
                const Int8Value in = int8_.at(node.inputs[0]);
                std::vector<ValueId> inputs = node.inputs;
                inputs[0] = in.q;
                const std::vector<ValueId> outputs = r.add(node.kind, node.name + ".int8", inputs, node.attributes, {}, node.outputs.size());
                for (size_t i = 0; i < outputs.size(); ++i) {
                    const ValueId out = node.outputs[i];
                    int8_[out] = {outputs[i], in.params};
                    if (floatRead_.contains(out)) dequantize(r, out, out);
                }
                return true;
            }
            case Role::Fp32: break;
        }
        std::vector<ValueId> inputs = node.inputs;
        bool changed = false;
        for (ValueId& id : inputs) {
            if (const auto d = dequantized_.find(id); d != dequantized_.end()) {
                id = d->second;
                changed = true;
            }
        }
        // A clamp from 0 whose result only a quantise reads (quantised ops, and fp32 readers
        // through its dequantisation), with zero point -128: the quantise saturates what the
        // clamp cuts, so it quantises the clamp's input instead.
        const ValueId out = node.outputs[0];
        const bool onlyQuantized = requantized_.contains(out) || (calibrated_.contains(out) && !floatRead_.contains(out));
        if (clampsAtZero(graph_, node) && onlyQuantized && !outputs_.contains(out) && paramsOf(out).zeroPoint == -128) {
            const QuantParams params = paramsOf(out);
            const std::string name = graph_.value(out).name;
            int8_[out] = {r.add(OpKind::QuantizeLinear, name + ".quantize",
                                {inputs[0], scalar(r, name + ".scale", params.scale), zeroPoint(r, name + ".zero_point", -128)})[0],
                          params};
            if (requantized_.contains(out)) dequantized_[out] = dequantize(r, out, kNoValue);
            return true;
        }
        const bool requantizes = std::any_of(node.outputs.begin(), node.outputs.end(),
                                             [&](ValueId id) { return requantized_.contains(id); });
        if (!changed && !requantizes) return false;
        r.add(node.kind, node.name, inputs, node.attributes, node.outputs, node.outputs.size());
        for (ValueId id : node.outputs) {
            if (!requantized_.contains(id)) continue;
            int8Input(r, id);
            dequantized_[id] = dequantize(r, id, kNoValue);  // what its fp32 readers read
        }
        return true;
    });
}

}  // namespace

void quantizeInt8(Graph& graph, const PrecisionOptions& options, std::span<const CalibrationSet> calibration) {
    if (calibration.empty()) throw InputError("int8 needs calibration inputs: give --calibrate-inputs DIR");
    for (const auto& [op, precision] : options.overrides) {
        if (precision != Precision::Fp32 && precision != Precision::Int8) {
            throw InputError("--precision-override " + op + "=" + std::string(precisionName(precision)) +
                             ": at int8 an op can be kept at fp32 only");
        }
    }
    Quantizer quantizer(graph, options);
    const std::map<ValueId, ActivationRange> ranges = calibrateRanges(graph, quantizer.calibrated(), calibration, options.quantization);
    for (ValueId id : quantizer.calibrated()) {
        if (!ranges.contains(id)) throw InputError("calibration gave no values for '" + graph.value(id).name + "'");
    }
    quantizer.rewrite(ranges);
}

}  // namespace npusim::compiler
