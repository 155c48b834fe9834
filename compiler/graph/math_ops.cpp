// Elementwise math the NPU's vector unit has no function for, run by CPU kernels: the
// trigonometric and hyperbolic functions and their inverses, Floor, Ceil, Round (halves to
// even), Sign, Softsign, Shrink, Celu, IsNaN and IsInf. Floats are computed in double and
// rounded to the dtype once.
#include <cmath>
#include <limits>

#include "compiler/graph/elementwise.h"
#include "compiler/graph/op_impl.h"
#include "compiler/graph/op_table.h"

namespace npusim::compiler::ops {
namespace {

double (*transcendental(OpKind kind))(double) {
    switch (kind) {
        case OpKind::Sin: return [](double x) { return std::sin(x); };
        case OpKind::Cos: return [](double x) { return std::cos(x); };
        case OpKind::Tan: return [](double x) { return std::tan(x); };
        case OpKind::Asin: return [](double x) { return std::asin(x); };
        case OpKind::Acos: return [](double x) { return std::acos(x); };
        case OpKind::Atan: return [](double x) { return std::atan(x); };
        case OpKind::Sinh: return [](double x) { return std::sinh(x); };
        case OpKind::Cosh: return [](double x) { return std::cosh(x); };
        case OpKind::Asinh: return [](double x) { return std::asinh(x); };
        case OpKind::Acosh: return [](double x) { return std::acosh(x); };
        case OpKind::Atanh: return [](double x) { return std::atanh(x); };
        case OpKind::Floor: return [](double x) { return std::floor(x); };
        case OpKind::Ceil: return [](double x) { return std::ceil(x); };
        case OpKind::Round: return [](double x) { return std::nearbyint(x); };  // the default mode: halves to even
        case OpKind::Softsign: return [](double x) { return x / (1 + std::fabs(x)); };
        default: return nullptr;
    }
}

}  // namespace

void inferMath(Graph& graph, const Node& node) {
    checkArity(graph, node);
    const Value& x = graph.value(node.inputs[0]);
    switch (node.kind) {
        case OpKind::Sign:
        case OpKind::Shrink: requireDType(node, "X", x.dtype, kNumericDTypes); break;
        default: requireDType(node, "X", x.dtype, kFloatDTypes);
    }
    const bool test = node.kind == OpKind::IsNaN || node.kind == OpKind::IsInf;
    setOutput(graph, node, test ? DType::Bool : x.dtype, x.shape);
}

std::vector<Tensor> interpretMath(const Node& node, std::span<const Tensor* const> inputs) {
    const Tensor& x = *inputs[0];
    if (const auto f = transcendental(node.kind)) return {mapFloat(x, f)};
    switch (node.kind) {
        case OpKind::Sign: {
            const auto sign = [](auto v) { return v > 0 ? decltype(v){1} : v < 0 ? decltype(v){-1} : v; };
            if (isFloat(x.dtype)) return {mapFloat(x, sign)};
            return {mapInteger(x, sign)};
        }
        case OpKind::Shrink: {
            // x + bias below -lambd, x - bias above lambd, 0 between.
            const double lambd = node.floatAttr("lambd", 0.5f), bias = node.floatAttr("bias", 0.0f);
            const auto shrink = [&](double v) { return v < -lambd ? v + bias : v > lambd ? v - bias : 0.0; };
            if (isFloat(x.dtype)) return {mapFloat(x, shrink)};
            return {mapInteger(x, [&](int64_t v) { return static_cast<int64_t>(shrink(static_cast<double>(v))); })};
        }
        case OpKind::Celu: {
            const double alpha = node.floatAttr("alpha", 1.0f);
            return {mapFloat(x, [alpha](double v) { return std::max(0.0, v) + std::min(0.0, alpha * std::expm1(v / alpha)); })};
        }
        default: {
            // IsNaN, IsInf (detect_negative, detect_positive).
            const bool negative = node.intAttr("detect_negative", 1) != 0, positive = node.intAttr("detect_positive", 1) != 0;
            const std::vector<double> values = floatValues(x);
            Tensor out = Tensor::zeros(DType::Bool, x.shape);
            for (size_t i = 0; i < values.size(); ++i) {
                const double v = values[i];
                const bool hit = node.kind == OpKind::IsNaN ? std::isnan(v) : std::isinf(v) && (v > 0 ? positive : negative);
                out.bytes[i] = std::byte{hit};
            }
            return {std::move(out)};
        }
    }
}

}  // namespace npusim::compiler::ops
