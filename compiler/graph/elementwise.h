// Elementwise reference semantics on host tensors: element values widened (float dtypes fp32,
// fp16 and bf16 to double; integer dtypes and bool to int64) and narrowed back (rounding to the
// float format, wrapping to the integer width), maps and numpy-broadcast binary operations.
// Internal to compiler/graph (op implementation files only).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "arch/tensor.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/op_support.h"

namespace npusim::compiler::ops {

/// The dtypes of the float-only ops (Sqrt, Softmax, ...).
inline constexpr std::initializer_list<DType> kFloatDTypes = {DType::Fp32, DType::Fp16,
                                                              DType::Bf16};
/// The dtypes of ops defined on every number (Add, Max, Clip, ...).
inline constexpr std::initializer_list<DType> kNumericDTypes = {
    DType::Fp32, DType::Fp16, DType::Bf16, DType::Int8, DType::UInt8, DType::Int32, DType::Int64};

/// The dtypes of ops defined on signed numbers (Neg).
inline constexpr std::initializer_list<DType> kSignedDTypes = {
    DType::Fp32, DType::Fp16, DType::Bf16, DType::Int8, DType::Int32, DType::Int64};

/// Every element as a double: exact for the float dtypes and for integers up to 2^53.
std::vector<double> floatValues(const Tensor& tensor);
/// Every element of a float tensor as an fp32 value (16-bit formats widen exactly).
std::vector<float> widenedFloats(const Tensor& tensor);
/// Every element of an integer or bool tensor as an int64 (exact).
std::vector<int64_t> integerValues(const Tensor& tensor);

/// A tensor of the float `dtype` holding `values`, each rounded to nearest even.
Tensor floatTensor(DType dtype, Shape shape, std::span<const double> values);
/// A tensor of the integer `dtype` holding `values`, each wrapped to the dtype's width (two's
/// complement), as numpy's astype does.
Tensor integerTensor(DType dtype, Shape shape, std::span<const int64_t> values);

/// Applies `function` (double -> double) to every element of a float tensor.
template <class Function>
Tensor mapFloat(const Tensor& tensor, Function function) {
    std::vector<double> values = floatValues(tensor);
    for (double& value : values) value = function(value);
    return floatTensor(tensor.dtype, tensor.shape, values);
}

/// Applies `function` (int64 -> int64) to every element of an integer tensor.
template <class Function>
Tensor mapInteger(const Tensor& tensor, Function function) {
    std::vector<int64_t> values = integerValues(tensor);
    for (int64_t& value : values) value = function(value);
    return integerTensor(tensor.dtype, tensor.shape, values);
}

/// Wrapping int64 arithmetic, computed on uint64 where overflow is defined; narrowing the result
/// then gives the wrap-around of any narrower integer dtype.
inline int64_t wrappingAdd(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrappingSub(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrappingMul(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

/// `floatOp(a[i], b[j])` (double) or `integerOp(a[i], b[j])` (int64) over the numpy broadcast of
/// `a` and `b`, by a's dtype; the result has a's dtype.
template <class FloatOp, class IntegerOp>
Tensor broadcastBinary(const Node& node, const Tensor& a, const Tensor& b, FloatOp floatOp,
                       IntegerOp integerOp) {
    const Shape shape = broadcastShapes(node, a.shape, b.shape);
    const std::vector<int64_t> aIndex = broadcastSourceIndices(a.shape, shape);
    const std::vector<int64_t> bIndex = broadcastSourceIndices(b.shape, shape);
    if (isFloat(a.dtype)) {
        const std::vector<double> aValues = floatValues(a), bValues = floatValues(b);
        std::vector<double> out(aIndex.size());
        for (size_t i = 0; i < out.size(); ++i) {
            out[i] = floatOp(aValues[aIndex[i]], bValues[bIndex[i]]);
        }
        return floatTensor(a.dtype, shape, out);
    }
    const std::vector<int64_t> aValues = integerValues(a), bValues = integerValues(b);
    std::vector<int64_t> out(aIndex.size());
    for (size_t i = 0; i < out.size(); ++i) {
        out[i] = integerOp(aValues[aIndex[i]], bValues[bIndex[i]]);
    }
    return integerTensor(a.dtype, shape, out);
}

}  // namespace npusim::compiler::ops
