// Elementwise ops on the vector unit: one kernel over the output's index space; broadcast
// inputs become column or row operands where the vector unit can read them so.
#include <algorithm>
#include <cmath>
#include <variant>

#include "compiler/graph/op_table.h"
#include "compiler/tile/index_space.h"
#include "compiler/tiling/vector_lowering.h"

namespace npusim::compiler {
namespace {

using isa::VectorOp;

bool isScalarConstant(const Value& value) {
    return value.constant && elementCount(value.shape) == 1 && value.dtype == DType::Fp32;
}

}  // namespace

void shapeForRows(IndexSpace& space) {
    simplifyDims(space, 0, space.dims.size());
    if (space.dims.empty()) insertUnitDim(space, 0);
    splitDim(space, space.dims.size() - 1, kMaxVectorCols);
    if (space.dims.size() < 2) insertUnitDim(space, 0);
}

TensorView lowWords(TensorView view) {
    view.offset *= 2;
    for (int64_t& stride : view.strides) stride *= 2;
    return view;
}

namespace {

/// The kernel; with `int64AsInt32`, int64 operands are read as their low words and int64
/// results written as low and high (sign) words.
VectorProblem buildStrided(const Graph& graph, uint32_t opId, const std::string& name, const IndexSpace& space,
                           ViewOrigin output, std::span<const ViewOrigin> inputs, const ElementwiseBody& body,
                           bool wholeBlocks, bool int64AsInt32) {
    VectorBuilder b(opId, name, space.dims, 1);
    std::vector<Operand> operands;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const ViewOrigin& in = inputs[i];
        TensorView view{in.value, in.offset, space.strides[i + 1]};
        DType dtype = graph.value(in.value).dtype;
        if (int64AsInt32 && dtype == DType::Int64) {
            view = lowWords(view);
            dtype = DType::Int32;
        }
        operands.push_back({wholeBlocks ? b.loadBlock(view, dtype) : b.load(view, dtype), 0});
    }
    uint32_t result = body(b, operands);
    if (b.extentOf(result) != BufferExtent::Block) {
        throw VectorUnsupported("an elementwise result broadcast from its inputs");
    }
    // A narrow integer result computed in int32 (or a comparison's 1 or 0 in fp32) is
    // narrowed, saturating, as it is stored.
    const DType stored = graph.value(output.value).dtype;
    const bool narrow = stored == DType::Int8 || stored == DType::UInt8 || stored == DType::Bool;
    if (narrow && b.dtypeOf(result) == DType::Fp32 && stored == DType::Bool) result = b.unary(VectorOp::Cast, result, DType::Int32);
    if (narrow && b.dtypeOf(result) == DType::Int32) {
        result = b.immediate(VectorOp::Requantize, result, fp32Bits(1.0f), 0, stored);
    }
    // A 16-bit float result computed in fp32 is rounded to nearest even as it is stored.
    if ((stored == DType::Fp16 || stored == DType::Bf16) && b.dtypeOf(result) == DType::Fp32) {
        result = b.unary(VectorOp::Cast, result, stored);
    }
    const TensorView out{output.value, output.offset, space.strides[0]};
    if (stored == DType::Int64 && b.dtypeOf(result) != DType::Int64 && !int64AsInt32) {
        throw VectorUnsupported("an int64 result computed in int32");  // built again, stored as words
    }
    if (int64AsInt32 && stored == DType::Int64) {
        if (b.dtypeOf(result) != DType::Int32) result = b.unary(VectorOp::Cast, result, DType::Int32);
        TensorView high = lowWords(out);
        ++high.offset;
        b.store(result, lowWords(out));
        b.store(b.immediate(VectorOp::Clip, result, static_cast<uint32_t>(-1), 0), high);  // the sign: -1 or 0
    } else {
        b.store(result, out);
    }
    return b.finish();
}

}  // namespace

VectorProblem stridedProblem(const Graph& graph, uint32_t opId, std::string name, IndexSpace space,
                             ViewOrigin output, std::span<const ViewOrigin> inputs, const ElementwiseBody& body,
                             bool wholeBlocks) {
    shapeForRows(space);
    try {
        return buildStrided(graph, opId, name, space, output, inputs, body, wholeBlocks, false);
    } catch (const VectorUnsupported&) {
        // The vector unit computes no int64: int64 operands are then computed on their low
        // 32 bits (exact for values within int32), and results sign-extended.
        const auto int64 = [&](ValueId id) { return graph.value(id).dtype == DType::Int64; };
        if (!int64(output.value) && std::none_of(inputs.begin(), inputs.end(), [&](const ViewOrigin& in) { return int64(in.value); })) {
            throw;
        }
        return buildStrided(graph, opId, name, space, output, inputs, body, wholeBlocks, true);
    }
}

VectorProblem elementwiseProblem(const Graph& graph, uint32_t opId, std::string name,
                                 std::span<const ValueId> inputs, ValueId output, const ElementwiseBody& body,
                                 std::span<const Shape> broadcastShapes, bool immediates) {
    // Single-element fp32 constants become immediates; the body sees them in their places.
    const Value& out = graph.value(output);
    IndexSpace space = denseSpace(out.shape);
    std::vector<ViewOrigin> loaded;
    std::vector<std::optional<float>> immediate(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Value& in = graph.value(inputs[i]);
        if (immediates && isScalarConstant(in)) {
            immediate[i] = in.constant->as<float>()[0];
            continue;
        }
        space.add(broadcastTo(broadcastShapes.empty() ? in.shape : broadcastShapes[i], out.shape));
        loaded.push_back({inputs[i], 0});
    }
    return stridedProblem(graph, opId, std::move(name), std::move(space), {output, 0}, loaded,
                          [&](VectorBuilder& b, std::span<const Operand> buffers) {
                              std::vector<Operand> operands;
                              size_t next = 0;
                              for (const std::optional<float>& value : immediate) {
                                  operands.push_back(value ? Operand{std::nullopt, *value} : buffers[next++]);
                              }
                              return body(b, operands);
                          });
}

namespace {

using Body = ElementwiseBody;

uint32_t negate(VectorBuilder& b, uint32_t x) { return b.scalar(VectorOp::Mul, x, -1.0f); }

/// 1 where the int32 buffer's element equals `value`, else 0 (int32).
uint32_t equalsScalar(VectorBuilder& b, uint32_t x, int32_t value) {
    return b.immediate(VectorOp::Equal, x, static_cast<uint32_t>(value));
}

/// 1 - mask, for masks of 0 and 1.
uint32_t complement(VectorBuilder& b, uint32_t mask) { return b.scalar(VectorOp::Add, negate(b, mask), 1.0f); }

/// x ** |e| for int32 x and e, by binary exponentiation over e's bits from the highest of
/// `bits` down, in wrapping int32 products (exact modulo 2^32, as the reference's integers).
uint32_t integerMagnitudePower(VectorBuilder& b, uint32_t x, uint32_t e, int bits) {
    uint32_t rest = b.binary(VectorOp::Max, e, negate(b, e));
    const uint32_t xMinusOne = b.scalar(VectorOp::Sub, x, 1.0f);
    std::optional<uint32_t> result;
    for (int bit = bits - 1; bit >= 0; --bit) {
        const float weight = static_cast<float>(int64_t{1} << bit);
        const uint32_t set = complement(b, b.scalar(VectorOp::Less, rest, weight));
        if (bit > 0) rest = b.binary(VectorOp::Sub, rest, b.scalar(VectorOp::Mul, set, weight));
        // factor = x where the bit is set, 1 elsewhere.
        const uint32_t factor = b.scalar(VectorOp::Add, b.binary(VectorOp::Mul, set, xMinusOne), 1.0f);
        result = result ? b.binary(VectorOp::Mul, b.binary(VectorOp::Mul, *result, *result), factor) : factor;
    }
    return *result;
}

/// x ** y for an integer base, as the reference computes it: exact integer powers for integer
/// exponents (a negative one leaves only bases of magnitude 1), the real power truncated for
/// fractional ones.
uint32_t integerPower(VectorBuilder& b, uint32_t x, const Operand& y) {
    x = b.scalar(VectorOp::Add, x, 0.0f);  // as int32
    auto unitBase = [&] { return equalsScalar(b, b.binary(VectorOp::Max, x, negate(b, x)), 1); };
    auto truncatedPower = [&](const Operand& exponent) {
        const uint32_t logX = b.unary(VectorOp::Log, b.unary(VectorOp::Cast, x, DType::Fp32));
        const uint32_t product = exponent.buffer ? b.binary(VectorOp::Mul, logX, *exponent.buffer)
                                                 : b.scalar(VectorOp::Mul, logX, exponent.value);
        return b.unary(VectorOp::Cast, b.unary(VectorOp::Exp, product), DType::Int32);
    };
    if (!y.buffer) {
        const float e = y.value;
        if (e != std::trunc(e) || std::abs(e) >= 2147483648.0f) return truncatedPower(y);
        // Square and multiply over the known bits of |e|, highest first.
        const auto magnitude = static_cast<int64_t>(std::abs(e));
        uint32_t power = magnitude == 0 ? b.fill(DType::Int32, 1) : x;
        int top = 0;
        while ((magnitude >> (top + 1)) != 0) ++top;
        for (int bit = top - 1; bit >= 0 && magnitude != 0; --bit) {
            power = b.binary(VectorOp::Mul, power, power);
            if ((magnitude >> bit) & 1) power = b.binary(VectorOp::Mul, power, x);
        }
        if (magnitude == 1) power = b.unary(VectorOp::Copy, power);  // a result of its own
        return e < 0 ? b.binary(VectorOp::Mul, power, unitBase()) : power;
    }
    const bool fractional = isFloat(b.dtypeOf(*y.buffer));
    const uint32_t e = fractional ? b.unary(VectorOp::Cast, *y.buffer, DType::Int32) : b.scalar(VectorOp::Add, *y.buffer, 0.0f);
    uint32_t power = integerMagnitudePower(b, x, e, 31);
    const uint32_t negative = b.scalar(VectorOp::Less, e, 0.0f);
    // Keep the power where e >= 0 or |x| == 1.
    power = b.binary(VectorOp::Mul, power, b.binary(VectorOp::Max, complement(b, negative), unitBase()));
    if (!fractional) return power;
    const uint32_t exponent = b.unary(VectorOp::Cast, *y.buffer, DType::Fp32);  // fp16 and bf16 widened
    const uint32_t integral = b.unary(
        VectorOp::Cast, b.binary(VectorOp::Equal, exponent, b.unary(VectorOp::Cast, e, DType::Fp32)), DType::Int32);
    return b.binary(VectorOp::Add, b.binary(VectorOp::Mul, power, integral),
                    b.binary(VectorOp::Mul, truncatedPower(Operand{exponent, 0}), complement(b, integral)));
}

/// x ** y: small integer exponents by repeated products (exact for negative bases too), other
/// exponents as exp(y * ln x), which gives NaN for negative bases as the reference does.
uint32_t power(VectorBuilder& b, const Operand& x, const Operand& y) {
    if (!x.buffer) throw VectorUnsupported("Pow with a constant base");
    if (!isFloat(b.dtypeOf(*x.buffer))) return integerPower(b, *x.buffer, y);
    if (!y.buffer) {
        const float e = y.value;
        if (e == 0.5f) return b.unary(VectorOp::Sqrt, *x.buffer);
        if (e == -0.5f) return b.unary(VectorOp::Rsqrt, *x.buffer);
        if (e == static_cast<float>(static_cast<int>(e)) && std::abs(e) >= 1 && std::abs(e) <= 4) {
            uint32_t result = *x.buffer;
            for (int i = 1; i < static_cast<int>(std::abs(e)); ++i) result = b.binary(VectorOp::Mul, result, *x.buffer);
            return e < 0 ? b.unary(VectorOp::Reciprocal, result) : b.unary(VectorOp::Copy, result);
        }
    }
    uint32_t exponent = y.buffer ? *y.buffer : 0;
    if (y.buffer && b.dtypeOf(exponent) != DType::Fp32) exponent = b.unary(VectorOp::Cast, exponent, DType::Fp32);
    const uint32_t logX = b.unary(VectorOp::Log, *x.buffer);
    const uint32_t product = y.buffer ? b.binary(VectorOp::Mul, logX, exponent) : b.scalar(VectorOp::Mul, logX, y.value);
    return b.unary(VectorOp::Exp, product);
}

/// relu(x) + min(scale * (e^x - 1), 0): Elu's and Selu's negative branch added to the positive.
uint32_t exponentialLinear(VectorBuilder& b, uint32_t x, float alpha, float gamma) {
    uint32_t negative = b.unary(VectorOp::Exp, x);
    negative = b.scalar(VectorOp::Sub, negative, 1.0f);
    negative = b.scalar(VectorOp::Mul, negative, alpha);
    negative = b.scalar(VectorOp::Min, negative, 0.0f);
    const uint32_t sum = b.binary(VectorOp::Add, b.unary(VectorOp::Relu, x), negative);
    return gamma == 1.0f ? sum : b.scalar(VectorOp::Mul, sum, gamma);
}

/// max(lo, min(hi, alpha * x + beta)).
uint32_t hardSigmoid(VectorBuilder& b, uint32_t x, float alpha, float beta) {
    const uint32_t ramp = b.scalar(VectorOp::Add, b.scalar(VectorOp::Mul, x, alpha), beta);
    return b.immediate(VectorOp::Clip, ramp, fp32Bits(0.0f), fp32Bits(1.0f));
}

/// x converted to `to`: a plain copy for the same type, one cast where the vector unit has it,
/// else through int32 (truncated) and a saturating requantise for int8 and uint8, or through
/// fp32 between the 16-bit floats.
uint32_t convert(VectorBuilder& b, uint32_t x, DType to) {
    const DType from = b.dtypeOf(x);
    if (from == to) return x;
    // int64 results are stored as int32 low and high words (stridedProblem).
    if (to == DType::Int64) return from == DType::Int32 ? x : convert(b, x, DType::Int32);
    if (isa::vectorSupports(VectorOp::Cast, from, to)) return b.unary(VectorOp::Cast, x, to);
    if (to == DType::Int8 || to == DType::UInt8) {
        const uint32_t wide = from == DType::Int32 ? x : b.unary(VectorOp::Cast, x, DType::Int32);
        return b.immediate(VectorOp::Requantize, wide, fp32Bits(1.0f), 0, to);
    }
    if ((to == DType::Fp16 || to == DType::Bf16) && from != DType::Fp32) {
        return b.unary(VectorOp::Cast, b.unary(VectorOp::Cast, x, DType::Fp32), to);
    }
    return b.unary(VectorOp::Cast, x, to);  // reports what the vector unit lacks
}

/// The body of the node's elementwise computation, with the inputs it reads; nullopt when the
/// node is not elementwise.
std::optional<std::pair<Body, std::vector<ValueId>>> elementwiseBody(const Graph& graph, const Node& node) {
    const std::vector<ValueId> first(node.inputs.begin(), node.inputs.begin() + 1);
    const std::optional<VectorOp> function = vectorFunction(node.kind);
    if (function && opInfo(node.kind).maxInputs == 1) {
        return std::pair{Body([op = *function](VectorBuilder& b, std::span<const Operand> in) { return b.unary(op, *in[0].buffer); }),
                         first};
    }
    if (const auto op = function) {
        const bool mean = node.kind == OpKind::Mean;
        const auto count = static_cast<float>(node.inputs.size());
        return std::pair{Body([op = *op, mean, count](VectorBuilder& b, std::span<const Operand> in) {
                             if (in.size() == 1) return b.unary(VectorOp::Copy, *in[0].buffer);
                             uint32_t result = b.binary(op, in[0], in[1]);
                             for (size_t i = 2; i < in.size(); ++i) result = b.binary(op, Operand{result, 0}, in[i]);
                             return mean ? b.scalar(VectorOp::Mul, result, 1.0f / count) : result;
                         }),
                         node.inputs};
    }
    switch (node.kind) {
        case OpKind::Pow:
            return std::pair{Body([](VectorBuilder& b, std::span<const Operand> in) { return power(b, in[0], in[1]); }),
                             node.inputs};
        case OpKind::Neg:
            return std::pair{Body([](VectorBuilder& b, std::span<const Operand> in) { return negate(b, *in[0].buffer); }), first};
        case OpKind::Abs:
            return std::pair{Body([](VectorBuilder& b, std::span<const Operand> in) {
                                 return b.binary(VectorOp::Max, *in[0].buffer, negate(b, *in[0].buffer));
                             }),
                             first};
        case OpKind::Cast:
        case OpKind::CastLike:
            return std::pair{Body([to = graph.value(node.outputs[0]).dtype](VectorBuilder& b, std::span<const Operand> in) {
                                 return convert(b, *in[0].buffer, to);
                             }),
                             first};
        case OpKind::Identity:
            return std::pair{Body([](VectorBuilder&, std::span<const Operand> in) { return *in[0].buffer; }), first};
        case OpKind::Elu:
            return std::pair{Body([a = static_cast<float>(node.floatAttr("alpha", 1.0))](VectorBuilder& b, std::span<const Operand> in) {
                                 return exponentialLinear(b, *in[0].buffer, a, 1.0f);
                             }),
                             first};
        case OpKind::Selu: {
            const auto a = static_cast<float>(node.floatAttr("alpha", 1.67326319217681884765625f));
            const auto g = static_cast<float>(node.floatAttr("gamma", 1.05070102214813232421875f));
            return std::pair{Body([a, g](VectorBuilder& b, std::span<const Operand> in) { return exponentialLinear(b, *in[0].buffer, a, g); }),
                             first};
        }
        case OpKind::Softplus:
            return std::pair{Body([](VectorBuilder& b, std::span<const Operand> in) {
                                 return b.unary(VectorOp::Log, b.scalar(VectorOp::Add, b.unary(VectorOp::Exp, *in[0].buffer), 1.0f));
                             }),
                             first};
        case OpKind::LeakyRelu: {
            const auto a = static_cast<float>(node.floatAttr("alpha", 0.01f));
            return std::pair{Body([a](VectorBuilder& b, std::span<const Operand> in) {
                                 const uint32_t scaled = b.scalar(VectorOp::Mul, *in[0].buffer, a);
                                 return b.binary(a <= 1.0f ? VectorOp::Max : VectorOp::Min, *in[0].buffer, scaled);
                             }),
                             first};
        }
        case OpKind::PRelu:
            // max(x, 0) + slope * min(x, 0): one of the two terms is zero, so the sum is exact.
            return std::pair{Body([](VectorBuilder& b, std::span<const Operand> in) {
                                 const uint32_t x = *in[0].buffer;
                                 const uint32_t below = b.binary(VectorOp::Mul, Operand{b.scalar(VectorOp::Min, x, 0.0f), 0}, in[1]);
                                 return b.binary(VectorOp::Add, b.scalar(VectorOp::Max, x, 0.0f), below);
                             }),
                             node.inputs};
        case OpKind::HardSigmoid: {
            const auto beta = static_cast<float>(node.floatAttr("beta", 0.5f));
            const auto a = static_cast<float>(node.floatAttr("alpha", 0.2f));
            return std::pair{Body([a, beta](VectorBuilder& b, std::span<const Operand> in) { return hardSigmoid(b, *in[0].buffer, a, beta); }),
                             first};
        }
        case OpKind::Gelu:  // one step of the activation unit: it fuses into a GEMM's epilogue
            return std::pair{Body([](VectorBuilder& b, std::span<const Operand> in) { return b.unary(VectorOp::Gelu, *in[0].buffer); }),
                             first};
        case OpKind::HardSwish:
            return std::pair{Body([](VectorBuilder& b, std::span<const Operand> in) {
                                 return b.binary(VectorOp::Mul, *in[0].buffer, hardSigmoid(b, *in[0].buffer, 1.0f / 6.0f, 0.5f));
                             }),
                             first};
        case OpKind::Clip: {
            // Each bound is absent, an immediate (attribute or constant) or a runtime operand.
            std::vector<ValueId> inputs = first;
            auto bound = [&](const char* name, size_t index) -> std::optional<std::variant<float, size_t>> {
                if (node.attributes.contains(name)) return static_cast<float>(node.floatAttr(name, 0));
                if (index >= node.inputs.size() || node.inputs[index] == kNoValue) return std::nullopt;
                const Value& value = graph.value(node.inputs[index]);
                if (value.constant) return static_cast<float>(value.constant->valueAt(0));
                inputs.push_back(node.inputs[index]);
                return inputs.size() - 1;
            };
            const auto lo = bound("min", 1), hi = bound("max", 2);
            return std::pair{Body([lo, hi](VectorBuilder& b, std::span<const Operand> in) {
                                 auto operand = [&](const std::variant<float, size_t>& given) {
                                     if (const auto* value = std::get_if<float>(&given)) return Operand{std::nullopt, *value};
                                     return in[std::get<size_t>(given)];
                                 };
                                 uint32_t x = *in[0].buffer;
                                 if (lo) x = b.binary(VectorOp::Max, Operand{x, 0}, operand(*lo));
                                 if (hi) x = b.binary(VectorOp::Min, Operand{x, 0}, operand(*hi));
                                 return lo || hi ? x : b.unary(VectorOp::Copy, x);
                             }),
                             inputs};
        }
        case OpKind::BatchNormalization: {
            const auto epsilon = static_cast<float>(node.floatAttr("epsilon", 1e-5f));
            return std::pair{Body([epsilon](VectorBuilder& b, std::span<const Operand> in) {
                                 // y = (x - mean) * scale / sqrt(var + epsilon) + B, the per-channel
                                 // factors computed on their own (column or row) vectors.
                                 const uint32_t inverse = b.unary(VectorOp::Rsqrt, b.binary(VectorOp::Add, in[4], Operand{std::nullopt, epsilon}));
                                 const uint32_t factor = b.binary(VectorOp::Mul, in[1], Operand{inverse, 0});
                                 const uint32_t centred = b.binary(VectorOp::Sub, in[0], in[3]);
                                 return b.binary(VectorOp::Add, b.binary(VectorOp::Mul, centred, factor), *in[2].buffer);
                             }),
                             node.inputs};
        }
        // Logic on bools (0 or 1, computed in int32): and is the minimum, or the maximum, xor
        // the absolute difference, not the complement.
        case OpKind::And:
        case OpKind::Or:
            return std::pair{Body([op = node.kind == OpKind::And ? VectorOp::Min : VectorOp::Max](VectorBuilder& b, std::span<const Operand> in) {
                                 return b.binary(op, in[0], in[1]);
                             }),
                             node.inputs};
        case OpKind::Xor:
            return std::pair{Body([](VectorBuilder& b, std::span<const Operand> in) {
                                 const uint32_t forward = b.binary(VectorOp::Sub, in[0], in[1]);
                                 return b.binary(VectorOp::Max, forward, negate(b, forward));
                             }),
                             node.inputs};
        case OpKind::Not:
            return std::pair{Body([](VectorBuilder& b, std::span<const Operand> in) {
                                 return b.scalar(VectorOp::Add, negate(b, *in[0].buffer), 1.0f);
                             }),
                             first};
        // Comparisons: 1 or 0. a <= b is a < b or a == b, so that NaN compares false.
        case OpKind::Less:
        case OpKind::Greater:
        case OpKind::Equal:
        case OpKind::LessOrEqual:
        case OpKind::GreaterOrEqual:
            return std::pair{Body([kind = node.kind](VectorBuilder& b, std::span<const Operand> in) {
                                 const bool swap = kind == OpKind::Greater || kind == OpKind::GreaterOrEqual;
                                 const Operand& lo = swap ? in[1] : in[0];
                                 const Operand& hi = swap ? in[0] : in[1];
                                 if (kind == OpKind::Equal) return b.binary(VectorOp::Equal, in[0], in[1]);
                                 const uint32_t less = b.binary(VectorOp::Less, lo, hi);
                                 if (kind == OpKind::Less || kind == OpKind::Greater) return less;
                                 return b.binary(VectorOp::Add, less, b.binary(VectorOp::Equal, in[0], in[1]));
                             }),
                             node.inputs};
        case OpKind::ThresholdedRelu: {
            // x where x > alpha, else 0: relu(x) masked by (1 - [x < alpha] - [x == alpha]), which
            // is x itself where the mask is 1 when alpha >= 0 (and 0 for NaN).
            const auto alpha = static_cast<float>(node.floatAttr("alpha", 1.0));
            if (alpha < 0) throw VectorUnsupported("ThresholdedRelu with a negative alpha");
            return std::pair{Body([alpha](VectorBuilder& b, std::span<const Operand> in) {
                                 const uint32_t x = *in[0].buffer;
                                 const uint32_t atOrBelow = b.binary(VectorOp::Add, b.scalar(VectorOp::Less, x, alpha),
                                                                     b.scalar(VectorOp::Equal, x, alpha));
                                 const uint32_t above = b.scalar(VectorOp::Add, negate(b, atOrBelow), 1.0f);
                                 return b.binary(VectorOp::Mul, b.unary(VectorOp::Relu, x), above);
                             }),
                             first};
        }
        default: return std::nullopt;
    }
}

}  // namespace

std::vector<VectorProblem> elementwiseProblemsFor(const Graph& graph, const Node& node, uint32_t opId) {
    const auto body = elementwiseBody(graph, node);
    if (!body) return {};
    if (node.outputs.size() > 1) throw VectorUnsupported("its optional outputs");
    std::vector<Shape> shapes;
    if (node.kind == OpKind::BatchNormalization) {
        // Per-channel parameters broadcast along dim 1 of X (spatial = 0: along dims 1...).
        const Shape& x = graph.value(node.inputs[0]).shape;
        shapes.push_back(x);
        for (size_t i = 1; i < node.inputs.size(); ++i) {
            Shape as = graph.value(node.inputs[i]).shape;
            as.insert(as.begin(), 1);
            as.resize(x.size(), 1);
            shapes.push_back(as);
        }
    }
    return {elementwiseProblem(graph, opId, std::string(opInfo(node.kind).name), body->second, node.outputs.at(0),
                               body->first, shapes, node.kind != OpKind::BatchNormalization)};
}

}  // namespace npusim::compiler
