// Vector ALU operations for fp32 and int32.
#include "hw_model/vector/vector_alu.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace npusim::hw {
namespace {

template <class T>
T apply(isa::VectorOp op, T x, T y) {
    using isa::VectorOp;
    // int32 add, sub and mul wrap, as the hardware's two's-complement ALU does.
    using Arith = std::conditional_t<std::is_integral_v<T>, uint32_t, T>;
    const auto ax = static_cast<Arith>(x), ay = static_cast<Arith>(y);
    switch (op) {
        case VectorOp::Copy: return x;
        case VectorOp::Add: return static_cast<T>(ax + ay);
        case VectorOp::Sub: return static_cast<T>(ax - ay);
        case VectorOp::Mul: return static_cast<T>(ax * ay);
        case VectorOp::Max: return std::max(x, y);
        case VectorOp::Min: return std::min(x, y);
        case VectorOp::Relu: return x > T(0) ? x : T(0);
    }
    throw std::logic_error("vector unit: unknown op");
}

template <class T>
void run(const VectorBlock& b) {
    auto element = [](const std::byte* base, size_t index) {
        T value;
        std::memcpy(&value, base + index * sizeof(T), sizeof(T));
        return value;
    };
    const T immediate = std::bit_cast<T>(b.immediate);
    for (uint32_t r = 0; r < b.rows; ++r) {
        for (uint32_t c = 0; c < b.cols; ++c) {
            const size_t index = static_cast<size_t>(r) * b.cols + c;
            T y{};
            switch (b.mode) {
                case isa::Operand1Mode::None: break;
                case isa::Operand1Mode::Full: y = element(b.src1, index); break;
                case isa::Operand1Mode::Row: y = element(b.src1, c); break;
                case isa::Operand1Mode::Column: y = element(b.src1, r); break;
                case isa::Operand1Mode::Scalar: y = element(b.src1, 0); break;
                case isa::Operand1Mode::Immediate: y = immediate; break;
            }
            const T result = apply<T>(b.op, element(b.src0, index), y);
            std::memcpy(b.dst + index * sizeof(T), &result, sizeof(T));
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
    if (block.dtype == DType::Fp32) {
        run<float>(block);
    } else if (block.dtype == DType::Int32) {
        run<int32_t>(block);
    } else {
        throw std::logic_error("vector unit: dtype must be fp32 or int32");
    }
}

}  // namespace npusim::hw
