// Vector ALU operations.
#include "hw_model/vector/vector_alu.h"

#include "arch/float_formats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace npusim::hw {
namespace {

using isa::VectorOp;

template <class T>
T load(const std::byte* base, size_t index) {
    T value;
    std::memcpy(&value, base + index * sizeof(T), sizeof(T));
    return value;
}

template <class T>
void store(std::byte* base, size_t index, T value) {
    std::memcpy(base + index * sizeof(T), &value, sizeof(T));
}

/// An element of an integer or float dtype, widened.
double loadAny(DType dtype, const std::byte* base, size_t index) {
    switch (dtype) {
        case DType::Int8: return load<int8_t>(base, index);
        case DType::UInt8:
        case DType::Bool: return load<uint8_t>(base, index);
        case DType::Int32: return load<int32_t>(base, index);
        case DType::Fp32: return load<float>(base, index);
        case DType::Fp16: return fp16ToFloat(load<uint16_t>(base, index));
        case DType::Bf16: return bf16ToFloat(load<uint16_t>(base, index));
        default: throw std::logic_error("vector unit: unsupported element type");
    }
}

/// Round half to even, add the zero point, saturate to [low, high].
int64_t quantize(float value, double zeroPoint, int64_t low, int64_t high) {
    if (std::isnan(value)) return std::clamp<int64_t>(static_cast<int64_t>(zeroPoint), low, high);
    const double rounded = std::nearbyint(static_cast<double>(value)) + zeroPoint;  // ties to even
    return static_cast<int64_t>(std::clamp(rounded, static_cast<double>(low), static_cast<double>(high)));
}

void storeQuantized(DType dtype, std::byte* base, size_t index, float value, double zeroPoint) {
    switch (dtype) {
        case DType::Int8: store<int8_t>(base, index, static_cast<int8_t>(quantize(value, zeroPoint, -128, 127))); return;
        case DType::UInt8: store<uint8_t>(base, index, static_cast<uint8_t>(quantize(value, zeroPoint, 0, 255))); return;
        case DType::Bool: store<uint8_t>(base, index, static_cast<uint8_t>(quantize(value, zeroPoint, 0, 1))); return;
        default: throw std::logic_error("vector unit: quantised output must be int8, uint8 or bool");
    }
}

float unaryFloat(VectorOp op, float x) {
    switch (op) {
        case VectorOp::Copy: return x;
        case VectorOp::Relu: return x > 0.0f ? x : 0.0f;
        case VectorOp::Exp: return std::exp(x);
        case VectorOp::Log: return std::log(x);
        case VectorOp::Sqrt: return std::sqrt(x);
        case VectorOp::Rsqrt: return 1.0f / std::sqrt(x);
        case VectorOp::Reciprocal: return 1.0f / x;
        case VectorOp::Tanh: return std::tanh(x);
        case VectorOp::Sigmoid: return 1.0f / (1.0f + std::exp(-x));
        case VectorOp::Erf: return std::erf(x);
        case VectorOp::Gelu: return 0.5f * x * (1.0f + std::erf(x * 0.70710678f));
        default: throw std::logic_error("vector unit: not a unary op");
    }
}

template <class T>
T binary(VectorOp op, T x, T y) {
    // int32 add, sub and mul wrap, as the hardware's two's-complement ALU does.
    using Arith = std::conditional_t<std::is_integral_v<T>, uint32_t, T>;
    const auto ax = static_cast<Arith>(x), ay = static_cast<Arith>(y);
    switch (op) {
        case VectorOp::Add: return static_cast<T>(ax + ay);
        case VectorOp::Sub: return static_cast<T>(ax - ay);
        case VectorOp::Mul: return static_cast<T>(ax * ay);
        case VectorOp::Div: return x / y;
        case VectorOp::Max: return std::max(x, y);
        case VectorOp::Min: return std::min(x, y);
        case VectorOp::Less: return x < y ? T{1} : T{0};
        case VectorOp::Equal: return x == y ? T{1} : T{0};
        default: throw std::logic_error("vector unit: not a binary op");
    }
}

bool isBinary(VectorOp op) {
    return op == VectorOp::Add || op == VectorOp::Sub || op == VectorOp::Mul || op == VectorOp::Div ||
           op == VectorOp::Max || op == VectorOp::Min || op == VectorOp::Less || op == VectorOp::Equal;
}

/// An immediate as a T: its bits for a 32-bit type, its low bits (two's complement) for a
/// narrower one.
template <class T>
T immediateAs(uint32_t bits) {
    if constexpr (sizeof(T) == sizeof(uint32_t)) {
        return std::bit_cast<T>(bits);
    } else {
        return static_cast<T>(bits);
    }
}

/// Same-type elementwise ops and reductions over T (float, int32_t, or int8_t and uint8_t for
/// the ops that only order values).
template <class T>
void sameType(const VectorBlock& b) {
    const T immediate = immediateAs<T>(b.immediate), immediate2 = immediateAs<T>(b.immediate2);
    auto operand1 = [&](uint32_t r, uint32_t c) -> T {
        switch (b.mode) {
            case isa::Operand1Mode::Full: return load<T>(b.src1, static_cast<size_t>(r) * b.cols + c);
            case isa::Operand1Mode::Row: return load<T>(b.src1, c);
            case isa::Operand1Mode::Column: return load<T>(b.src1, r);
            case isa::Operand1Mode::Scalar: return load<T>(b.src1, 0);
            case isa::Operand1Mode::Immediate: return immediate;
            case isa::Operand1Mode::None: break;
        }
        return T{};
    };
    for (uint32_t r = 0; r < b.rows; ++r) {
        if (isa::isReduction(b.op)) {
            T acc = b.op == VectorOp::ReduceSum ? T{0} : load<T>(b.src0, static_cast<size_t>(r) * b.cols);
            for (uint32_t c = 0; c < b.cols; ++c) {
                const T x = load<T>(b.src0, static_cast<size_t>(r) * b.cols + c);
                acc = b.op == VectorOp::ReduceSum ? binary<T>(VectorOp::Add, acc, x) : std::max(acc, x);
            }
            store<T>(b.dst, r, acc);
            continue;
        }
        for (uint32_t c = 0; c < b.cols; ++c) {
            const size_t index = static_cast<size_t>(r) * b.cols + c;
            const T x = load<T>(b.src0, index);
            T y;
            if (isBinary(b.op)) {
                y = binary<T>(b.op, x, operand1(r, c));
            } else if (b.op == VectorOp::Clip) {
                y = std::min(std::max(x, immediate), immediate2);
            } else if constexpr (std::is_floating_point_v<T>) {
                y = unaryFloat(b.op, x);
            } else {
                y = b.op == VectorOp::Relu ? std::max<T>(x, 0) : x;  // Copy
            }
            store<T>(b.dst, index, y);
        }
    }
}

/// Casts and (de)quantisation: element by element between types. The scale is the immediate
/// or, with a second operand, its fp32 element for (r, c): a per-channel requantisation.
void convert(const VectorBlock& b) {
    const auto zeroPoint = static_cast<double>(std::bit_cast<int32_t>(b.immediate2));
    const size_t count = static_cast<size_t>(b.rows) * b.cols;
    const float immediate = std::bit_cast<float>(b.immediate);
    const bool perElement = b.mode != isa::Operand1Mode::Immediate && b.mode != isa::Operand1Mode::None;
    const auto scaleAt = [&](size_t i) {
        switch (b.mode) {
            case isa::Operand1Mode::Full: return load<float>(b.src1, i);
            case isa::Operand1Mode::Row: return load<float>(b.src1, i % b.cols);
            case isa::Operand1Mode::Column: return load<float>(b.src1, i / b.cols);
            default: return load<float>(b.src1, 0);  // scalar
        }
    };
    for (size_t i = 0; i < count; ++i) {
        const double x = loadAny(b.dtype, b.src0, i);
        const float scale = perElement ? scaleAt(i) : immediate;
        switch (b.op) {
            case VectorOp::Cast:
                if (b.outDType == DType::Fp32) {
                    store<float>(b.dst, i, static_cast<float>(x));
                } else if (b.outDType == DType::Fp16) {
                    store<uint16_t>(b.dst, i, floatToFp16(static_cast<float>(x)));
                } else if (b.outDType == DType::Bf16) {
                    store<uint16_t>(b.dst, i, floatToBf16(static_cast<float>(x)));
                } else {  // int32: toward zero, saturating
                    const double truncated = std::isnan(x) ? 0.0 : std::trunc(x);
                    store<int32_t>(b.dst, i, static_cast<int32_t>(std::clamp(truncated, -2147483648.0, 2147483647.0)));
                }
                break;
            case VectorOp::Quantize:
                storeQuantized(b.outDType, b.dst, i, static_cast<float>(x) / scale, zeroPoint);
                break;
            case VectorOp::Requantize:
                storeQuantized(b.outDType, b.dst, i, static_cast<float>(x) * scale, zeroPoint);
                break;
            case VectorOp::Dequantize:
                store<float>(b.dst, i, static_cast<float>(x - zeroPoint) * scale);
                break;
            default: throw std::logic_error("vector unit: not a conversion");
        }
    }
}

}  // namespace

uint64_t operand1Elements(isa::Operand1Mode mode, uint32_t rows, uint32_t cols) {
    switch (mode) {
        case isa::Operand1Mode::Full: return uint64_t{rows} * cols;
        case isa::Operand1Mode::Row: return cols;
        case isa::Operand1Mode::Column: return rows;
        case isa::Operand1Mode::Scalar: return 1;
        case isa::Operand1Mode::None:
        case isa::Operand1Mode::Immediate: return 0;
    }
    return 0;
}

void computeVectorBlock(const VectorBlock& block) {
    if (block.op == VectorOp::Fill) {
        const size_t size = dtypeSize(block.outDType), count = static_cast<size_t>(block.rows) * block.cols;
        for (size_t i = 0; i < count; ++i) std::memcpy(block.dst + i * size, &block.immediate, size);  // little-endian
        return;
    }
    switch (block.op) {
        case VectorOp::Cast:
        case VectorOp::Quantize:
        case VectorOp::Requantize:
        case VectorOp::Dequantize: convert(block); return;
        default: break;
    }
    if (block.dtype == DType::Fp32) {
        sameType<float>(block);
    } else if (block.dtype == DType::Int32) {
        sameType<int32_t>(block);
    } else if (block.dtype == DType::Int8) {
        sameType<int8_t>(block);  // copy, max and min only (isa::vectorSupports)
    } else if (block.dtype == DType::UInt8) {
        sameType<uint8_t>(block);
    } else {
        throw std::logic_error("vector unit: dtype must be fp32, int32, int8 or uint8");
    }
}

}  // namespace npusim::hw
