// GEMM tile arithmetic for every operand dtype.
#include "hw_model/tensor/gemm_kernel.h"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "arch/float_formats.h"

namespace npusim::hw {
namespace {

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

template <class Element>
void integerGemm(const GemmTile& t) {
    std::vector<int32_t> b(static_cast<size_t>(t.k) * t.n);
    for (size_t i = 0; i < b.size(); ++i) b[i] = load<Element>(t.b, i) - t.bZeroPoint;
    for (uint32_t i = 0; i < t.m; ++i) {
        for (uint32_t j = 0; j < t.n; ++j) {
            // Two's-complement wrap, as the int32 accumulator does in hardware.
            uint32_t sum = t.accumulate ? static_cast<uint32_t>(load<int32_t>(t.c, i * t.n + j)) : 0;
            for (uint32_t p = 0; p < t.k; ++p) {
                const int32_t a = load<Element>(t.a, static_cast<size_t>(i) * t.k + p) - t.aZeroPoint;
                sum += static_cast<uint32_t>(a * b[static_cast<size_t>(p) * t.n + j]);
            }
            store<int32_t>(t.c, static_cast<size_t>(i) * t.n + j, static_cast<int32_t>(sum));
        }
    }
}

template <class Widen>
void floatGemm(const GemmTile& t, Widen widen) {
    std::vector<float> b(static_cast<size_t>(t.k) * t.n);
    for (size_t i = 0; i < b.size(); ++i) b[i] = widen(t.b, i);
    std::vector<float> a(t.k);
    for (uint32_t i = 0; i < t.m; ++i) {
        for (uint32_t p = 0; p < t.k; ++p) a[p] = widen(t.a, static_cast<size_t>(i) * t.k + p);
        for (uint32_t j = 0; j < t.n; ++j) {
            float partial = 0.0f;
            for (uint32_t p = 0; p < t.k; ++p) partial += a[p] * b[static_cast<size_t>(p) * t.n + j];
            const size_t index = static_cast<size_t>(i) * t.n + j;
            store<float>(t.c, index, t.accumulate ? load<float>(t.c, index) + partial : partial);
        }
    }
}

}  // namespace

void referenceGemmTile(const GemmTile& tile) {
    switch (tile.dtype) {
        case DType::Int8: integerGemm<int8_t>(tile); return;
        case DType::UInt8: integerGemm<uint8_t>(tile); return;
        case DType::Fp32:
            floatGemm(tile, [](const std::byte* p, size_t i) { return load<float>(p, i); });
            return;
        case DType::Fp16:
            floatGemm(tile, [](const std::byte* p, size_t i) { return fp16ToFloat(load<uint16_t>(p, i)); });
            return;
        case DType::Bf16:
            floatGemm(tile, [](const std::byte* p, size_t i) { return bf16ToFloat(load<uint16_t>(p, i)); });
            return;
        default: throw std::logic_error("tensor unit: dtype is not a GEMM operand type");
    }
}

}  // namespace npusim::hw
