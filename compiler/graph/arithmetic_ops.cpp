// Add, Sub, Mul, Div, Mod, Pow and BitShift: elementwise with numpy broadcasting. Floats are computed in double
// and rounded to the dtype once; integers wrap like two's complement hardware, and integer
// division truncates toward zero (as ONNX's reference does with numpy's astype).
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_support.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

/// BitShift's direction: true for LEFT, false for RIGHT.
bool bitShiftLeft(const Node& node) {
    const std::string direction = stringAttr(node, "direction", "");
    if (direction != "LEFT" && direction != "RIGHT") {
        opError(node, "direction is '" + direction + "'; it must be LEFT or RIGHT");
    }
    return direction == "LEFT";
}

/// base^exponent for a non-negative exponent by repeated squaring, wrapping like wrappingMul.
int64_t integerPower(int64_t base, int64_t exponent) {
    int64_t result = 1;
    while (exponent > 0) {
        if (exponent & 1) result = wrappingMul(result, base);
        base = wrappingMul(base, base);
        exponent >>= 1;
    }
    return result;
}

/// The shortest text that reads back as `value` ("2", "0.5").
std::string numberText(double value) {
    char buffer[32];
    return {buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr};
}

/// A real power converted to the integer dtype `dtype` by truncation toward zero, as a C cast.
int64_t truncatedPower(const Node& node, DType dtype, double base, double exponent) {
    const double power = std::trunc(std::pow(base, exponent));
    const bool fits = dtype == DType::Int32 ? power >= std::numeric_limits<int32_t>::min() &&
                                                  power <= std::numeric_limits<int32_t>::max()
                                            : power >= -0x1p63 && power < 0x1p63;
    if (!fits) {
        opError(node, numberText(base) + " ^ " + numberText(exponent) +
                          " is not representable in " + std::string(dtypeName(dtype)));
    }
    return static_cast<int64_t>(power);
}

}  // namespace

/// Checks the inputs of Add, Sub, Mul and Div: numbers of one dtype that broadcast.
void inferArithmetic(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& a = graph.value(node.inputs[0]);
    const Value& b = graph.value(node.inputs[1]);
    requireDType(node, "A", a.dtype, kNumericDTypes);
    requireSameDType(node, "A", a.dtype, "B", b.dtype);
    setOutput(graph, node, a.dtype, broadcastShapes(node, a.shape, b.shape));
}

std::vector<Tensor> interpretAdd(const Node& node, std::span<const Tensor* const> inputs) {
    return {broadcastBinary(
        node, *inputs[0], *inputs[1], [](double a, double b) { return a + b; }, wrappingAdd)};
}

std::vector<Tensor> interpretSub(const Node& node, std::span<const Tensor* const> inputs) {
    return {broadcastBinary(
        node, *inputs[0], *inputs[1], [](double a, double b) { return a - b; }, wrappingSub)};
}

std::vector<Tensor> interpretMul(const Node& node, std::span<const Tensor* const> inputs) {
    return {broadcastBinary(
        node, *inputs[0], *inputs[1], [](double a, double b) { return a * b; }, wrappingMul)};
}

std::vector<Tensor> interpretDiv(const Node& node, std::span<const Tensor* const> inputs) {
    const auto divide = [&](int64_t a, int64_t b) {
        if (b == 0) opError(node, "integer division by zero");
        // The one overflowing quotient wraps to itself, as in two's complement hardware.
        if (b == -1) return wrappingSub(0, a);
        return a / b;
    };
    return {broadcastBinary(
        node, *inputs[0], *inputs[1], [](double a, double b) { return a / b; }, divide)};
}

/// Mod: the sign of the divisor (Python's %) for integers; C's fmod, the sign of the dividend,
/// with fmod = 1, which float inputs require.
void inferMod(Graph& graph, const Node& node) {
    inferArithmetic(graph, node);
    const int64_t fmod = node.intAttr("fmod", 0);
    if (fmod != 0 && fmod != 1) opError(node, "fmod is " + std::to_string(fmod) + "; it must be 0 or 1");
    const DType dtype = graph.value(node.inputs[0]).dtype;
    if (isFloat(dtype) && fmod != 1) {
        opError(node, "A is " + std::string(dtypeName(dtype)) + "; float inputs need fmod = 1");
    }
}

/// An integer divisor of zero gives zero, as numpy's mod and fmod do.
std::vector<Tensor> interpretMod(const Node& node, std::span<const Tensor* const> inputs) {
    const bool fmod = node.intAttr("fmod", 0) == 1;
    const auto integerMod = [fmod](int64_t a, int64_t b) -> int64_t {
        if (b == 0 || b == -1) return 0;
        const int64_t r = a % b;
        return !fmod && r != 0 && (r < 0) != (b < 0) ? r + b : r;
    };
    return {broadcastBinary(
        node, *inputs[0], *inputs[1], [](double a, double b) { return std::fmod(a, b); }, integerMod)};
}

/// BitShift of unsigned integers (uint8, the one npusim has): a shift by the width or more
/// leaves 0, and bits shifted past the width are lost.
void inferBitShift(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    const Value& y = graph.value(node.inputs[1]);
    requireDType(node, "X", x.dtype, {DType::UInt8});
    requireSameDType(node, "X", x.dtype, "Y", y.dtype);
    bitShiftLeft(node);
    setOutput(graph, node, x.dtype, broadcastShapes(node, x.shape, y.shape));
}

std::vector<Tensor> interpretBitShift(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    const Tensor& y = *inputs[1];
    const bool left = bitShiftLeft(node);
    const Shape shape = broadcastShapes(node, x.shape, y.shape);
    const std::vector<int64_t> xIndex = broadcastSourceIndices(x.shape, shape), yIndex = broadcastSourceIndices(y.shape, shape);
    const std::vector<int64_t> xValues = integerValues(x), yValues = integerValues(y);
    std::vector<int64_t> out(xIndex.size());
    for (size_t i = 0; i < out.size(); ++i) {
        const int64_t value = xValues[xIndex[i]], amount = yValues[yIndex[i]];
        out[i] = amount >= 8 ? 0 : left ? value << amount : value >> amount;
    }
    return {integerTensor(x.dtype, shape, out)};
}

void inferPow(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& base = graph.value(node.inputs[0]);
    const Value& exponent = graph.value(node.inputs[1]);
    requireDType(node, "X", base.dtype,
                 {DType::Fp32, DType::Fp16, DType::Bf16, DType::Int32, DType::Int64});
    requireDType(node, "Y", exponent.dtype, kNumericDTypes);
    setOutput(graph, node, base.dtype, broadcastShapes(node, base.shape, exponent.shape));
}

std::vector<Tensor> interpretPow(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& base = *inputs[0];
    const Tensor& exponent = *inputs[1];
    const Shape shape = broadcastShapes(node, base.shape, exponent.shape);
    const std::vector<int64_t> baseIndex = broadcastSourceIndices(base.shape, shape);
    const std::vector<int64_t> exponentIndex = broadcastSourceIndices(exponent.shape, shape);
    const std::vector<double> exponents = floatValues(exponent);
    if (isFloat(base.dtype)) {
        const std::vector<double> bases = floatValues(base);
        std::vector<double> out(baseIndex.size());
        for (size_t i = 0; i < out.size(); ++i) {
            out[i] = std::pow(bases[baseIndex[i]], exponents[exponentIndex[i]]);
        }
        return {floatTensor(base.dtype, shape, out)};
    }
    // An integer base: exact integer powers for integer exponents, else the real power
    // truncated.
    const std::vector<int64_t> bases = integerValues(base);
    const std::vector<int64_t> integerExponents =
        isFloat(exponent.dtype) ? std::vector<int64_t>() : integerValues(exponent);
    std::vector<int64_t> out(baseIndex.size());
    for (size_t i = 0; i < out.size(); ++i) {
        const int64_t b = bases[baseIndex[i]];
        if (!integerExponents.empty() && integerExponents[exponentIndex[i]] >= 0) {
            out[i] = integerPower(b, integerExponents[exponentIndex[i]]);
        } else {
            out[i] = truncatedPower(node, base.dtype, static_cast<double>(b),
                                    exponents[exponentIndex[i]]);
        }
    }
    return {integerTensor(base.dtype, shape, out)};
}

}  // namespace npusim::compiler::ops
