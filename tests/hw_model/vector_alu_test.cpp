// The vector ALU's functions against their definitions: elementwise math, broadcasting,
// reductions, casts and (de)quantisation with ties-to-even rounding and saturation, and the
// order-only ops on int8 and uint8.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "hw_model/vector/vector_alu.h"

namespace npusim::hw {
namespace {

using isa::VectorOp;

template <class Out, class In>
std::vector<Out> run(VectorOp op, DType dtype, DType out, uint32_t rows, uint32_t cols, const std::vector<In>& src0,
                     const std::vector<In>& src1 = {}, isa::Operand1Mode mode = isa::Operand1Mode::None,
                     uint32_t immediate = 0, uint32_t immediate2 = 0) {
    std::vector<Out> dst(isa::isReduction(op) ? rows : rows * cols);
    VectorBlock block;
    block.op = op;
    block.dtype = dtype;
    block.outDType = out;
    block.mode = mode;
    block.rows = rows;
    block.cols = cols;
    block.immediate = immediate;
    block.immediate2 = immediate2;
    block.src0 = reinterpret_cast<const std::byte*>(src0.data());
    block.src1 = reinterpret_cast<const std::byte*>(src1.data());
    block.dst = reinterpret_cast<std::byte*>(dst.data());
    computeVectorBlock(block);
    return dst;
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
uint32_t bits(int32_t i) { return std::bit_cast<uint32_t>(i); }

TEST(VectorAlu, FillWritesTheImmediateInAnyTypeOfUpToFourBytes) {
    EXPECT_EQ(run<float>(VectorOp::Fill, DType::Fp32, DType::Fp32, 2, 2, std::vector<float>{}, {},
                         isa::Operand1Mode::None, bits(-2.5f)),
              std::vector<float>(4, -2.5f));
    EXPECT_EQ(run<uint8_t>(VectorOp::Fill, DType::UInt8, DType::UInt8, 1, 3, std::vector<uint8_t>{}, {},
                           isa::Operand1Mode::None, 0x1FFu),
              std::vector<uint8_t>(3, 0xFF));
    EXPECT_TRUE(isa::vectorSupports(VectorOp::Fill, DType::Fp16, DType::Fp16));
    EXPECT_FALSE(isa::vectorSupports(VectorOp::Fill, DType::Int64, DType::Int64));
    EXPECT_FALSE(isa::vectorSupports(VectorOp::Fill, DType::Fp32, DType::Int32));
}

TEST(VectorAlu, BoolsWidenToInt32AndNarrowBackSaturating) {
    EXPECT_EQ(run<int32_t>(VectorOp::Cast, DType::Bool, DType::Int32, 1, 3, std::vector<uint8_t>{0, 1, 1}),
              (std::vector<int32_t>{0, 1, 1}));
    EXPECT_EQ(run<uint8_t>(VectorOp::Requantize, DType::Int32, DType::Bool, 1, 3, std::vector<int32_t>{-2, 0, 5}, {},
                           isa::Operand1Mode::None, bits(1.0f)),
              (std::vector<uint8_t>{0, 0, 1}));
}

TEST(VectorAlu, ComparisonsGiveOneOrZeroAndAreFalseForNaN) {
    const float nan = std::nanf("");
    EXPECT_EQ(run<float>(VectorOp::Less, DType::Fp32, DType::Fp32, 1, 4, std::vector<float>{1, 2, 3, nan},
                         std::vector<float>{2, 2, 2, 2}, isa::Operand1Mode::Full),
              (std::vector<float>{1, 0, 0, 0}));
    EXPECT_EQ(run<int32_t>(VectorOp::Equal, DType::Int32, DType::Int32, 1, 3, std::vector<int32_t>{4, 5, 6}, {},
                           isa::Operand1Mode::Immediate, bits(int32_t{5})),
              (std::vector<int32_t>{0, 1, 0}));
}

TEST(VectorAlu, FloatFunctionsFollowTheirDefinitions) {
    const std::vector<float> x = {0.5f, 1.0f, 2.0f, 4.0f};
    struct Case {
        VectorOp op;
        float (*f)(float);
    };
    const Case cases[] = {
        {VectorOp::Exp, [](float v) { return std::exp(v); }},
        {VectorOp::Log, [](float v) { return std::log(v); }},
        {VectorOp::Sqrt, [](float v) { return std::sqrt(v); }},
        {VectorOp::Rsqrt, [](float v) { return 1.0f / std::sqrt(v); }},
        {VectorOp::Reciprocal, [](float v) { return 1.0f / v; }},
        {VectorOp::Tanh, [](float v) { return std::tanh(v); }},
        {VectorOp::Sigmoid, [](float v) { return 1.0f / (1.0f + std::exp(-v)); }},
        {VectorOp::Erf, [](float v) { return std::erf(v); }},
        {VectorOp::Gelu, [](float v) { return 0.5f * v * (1.0f + std::erf(v * 0.70710678f)); }},
    };
    for (const Case& c : cases) {
        const auto y = run<float>(c.op, DType::Fp32, DType::Fp32, 2, 2, x);
        for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], c.f(x[i])) << isa::vectorOpName(c.op);
    }
}

TEST(VectorAlu, BinaryOpsBroadcastTheirSecondOperand) {
    const std::vector<float> x = {1, 2, 3, 4, 5, 6};  // 2 x 3
    EXPECT_EQ(run<float>(VectorOp::Div, DType::Fp32, DType::Fp32, 2, 3, x, {1, 2, 4}, isa::Operand1Mode::Row),
              (std::vector<float>{1, 1, 0.75f, 4, 2.5f, 1.5f}));
    EXPECT_EQ(run<float>(VectorOp::Sub, DType::Fp32, DType::Fp32, 2, 3, x, {1, 10}, isa::Operand1Mode::Column),
              (std::vector<float>{0, 1, 2, -6, -5, -4}));
    EXPECT_EQ(run<float>(VectorOp::Max, DType::Fp32, DType::Fp32, 2, 3, x, {}, isa::Operand1Mode::Immediate, bits(3.5f)),
              (std::vector<float>{3.5f, 3.5f, 3.5f, 4, 5, 6}));
    EXPECT_EQ(run<float>(VectorOp::Clip, DType::Fp32, DType::Fp32, 2, 3, x, {}, isa::Operand1Mode::None, bits(2.0f), bits(5.0f)),
              (std::vector<float>{2, 2, 3, 4, 5, 5}));
}

TEST(VectorAlu, Int32ArithmeticWraps) {
    const std::vector<int32_t> x = {INT32_MAX, -5};
    EXPECT_EQ(run<int32_t>(VectorOp::Add, DType::Int32, DType::Int32, 1, 2, x, {1}, isa::Operand1Mode::Scalar),
              (std::vector<int32_t>{INT32_MIN, -4}));
    EXPECT_EQ(run<int32_t>(VectorOp::Relu, DType::Int32, DType::Int32, 1, 2, x), (std::vector<int32_t>{INT32_MAX, 0}));
}

TEST(VectorAlu, RowReductions) {
    const std::vector<float> x = {1, -2, 3, -4, 5, 6};  // 2 x 3
    EXPECT_EQ(run<float>(VectorOp::ReduceSum, DType::Fp32, DType::Fp32, 2, 3, x), (std::vector<float>{2, 7}));
    EXPECT_EQ(run<float>(VectorOp::ReduceMax, DType::Fp32, DType::Fp32, 2, 3, x), (std::vector<float>{3, 6}));
    EXPECT_EQ(run<int32_t>(VectorOp::ReduceMax, DType::Int32, DType::Int32, 1, 3, std::vector<int32_t>{-7, -3, -9}),
              (std::vector<int32_t>{-3}));
}

TEST(VectorAlu, ConversionsTakeAScalePerRowOrColumnFromTheSecondOperand) {
    // A GEMM's per-channel requantisation: row r scaled by its own fp32 scale, rounded half to
    // even, then the zero point (1) added; a per-column dequantisation likewise.
    const std::vector<int32_t> x = {10, 20, 30, 10, 20, 30};
    const std::vector<int32_t> perRow = {static_cast<int32_t>(bits(0.5f)), static_cast<int32_t>(bits(0.25f))};
    EXPECT_EQ(run<int8_t>(VectorOp::Requantize, DType::Int32, DType::Int8, 2, 3, x, perRow, isa::Operand1Mode::Column, 0,
                          bits(int32_t{1})),
              (std::vector<int8_t>{6, 11, 16, 3, 6, 9}));
    const std::vector<int32_t> perColumn = {static_cast<int32_t>(bits(1.0f)), static_cast<int32_t>(bits(2.0f)),
                                            static_cast<int32_t>(bits(3.0f))};
    EXPECT_EQ(run<float>(VectorOp::Dequantize, DType::Int32, DType::Fp32, 2, 3, std::vector<int32_t>{1, 2, 3, 4, 5, 6},
                         perColumn, isa::Operand1Mode::Row),
              (std::vector<float>{1, 4, 9, 4, 10, 18}));
}

TEST(VectorAlu, QuantizeRoundsHalfToEvenAndSaturates) {
    // x / 0.5 = 1, 3, 5, -3, 300, -300 (+ zero point 0): ties to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2.
    const std::vector<float> x = {0.25f, 0.75f, 1.25f, -0.75f, 150.0f, -150.0f};
    EXPECT_EQ(run<int8_t>(VectorOp::Quantize, DType::Fp32, DType::Int8, 1, 6, x, {}, isa::Operand1Mode::None, bits(2.0f)),
              (std::vector<int8_t>{0, 0, 1, 0, 75, -75}));
    EXPECT_EQ(run<int8_t>(VectorOp::Quantize, DType::Fp32, DType::Int8, 1, 6, x, {}, isa::Operand1Mode::None, bits(0.5f)),
              (std::vector<int8_t>{0, 2, 2, -2, 127, -128}));
    EXPECT_EQ(run<uint8_t>(VectorOp::Quantize, DType::Fp32, DType::UInt8, 1, 6, x, {}, isa::Operand1Mode::None, bits(0.5f),
                           bits(int32_t{10})),
              (std::vector<uint8_t>{10, 12, 12, 8, 255, 0}));
    // The zero point is added after rounding: 2.5 -> 2, + 1 = 3 (not round(3.5) = 4).
    EXPECT_EQ(run<uint8_t>(VectorOp::Quantize, DType::Fp32, DType::UInt8, 1, 2, std::vector<float>{1.25f, 1.75f}, {},
                           isa::Operand1Mode::None, bits(0.5f), bits(int32_t{1})),
              (std::vector<uint8_t>{3, 5}));
}

TEST(VectorAlu, RequantizeAndDequantize) {
    EXPECT_EQ(run<int8_t>(VectorOp::Requantize, DType::Int32, DType::Int8, 1, 4, std::vector<int32_t>{100, -100, 1000, 3},
                          {}, isa::Operand1Mode::None, bits(0.05f), bits(int32_t{-1})),
              (std::vector<int8_t>{4, -6, 49, -1}));
    EXPECT_EQ(run<float>(VectorOp::Dequantize, DType::UInt8, DType::Fp32, 1, 3, std::vector<uint8_t>{0, 128, 255}, {},
                         isa::Operand1Mode::None, bits(0.5f), bits(int32_t{128})),
              (std::vector<float>{-64.0f, 0.0f, 63.5f}));
}

TEST(VectorAlu, CastsTruncateAndSaturate) {
    EXPECT_EQ(run<int32_t>(VectorOp::Cast, DType::Fp32, DType::Int32, 1, 4, std::vector<float>{2.7f, -2.7f, 3e10f, -3e10f}),
              (std::vector<int32_t>{2, -2, INT32_MAX, INT32_MIN}));
    EXPECT_EQ(run<float>(VectorOp::Cast, DType::Int8, DType::Fp32, 1, 2, std::vector<int8_t>{-128, 127}),
              (std::vector<float>{-128.0f, 127.0f}));
}

TEST(VectorAlu, SupportedTypePairs) {
    EXPECT_TRUE(isa::vectorSupports(VectorOp::Add, DType::Int32, DType::Int32));
    EXPECT_FALSE(isa::vectorSupports(VectorOp::Add, DType::Int32, DType::Fp32));
    EXPECT_FALSE(isa::vectorSupports(VectorOp::Exp, DType::Int32, DType::Int32));
    EXPECT_TRUE(isa::vectorSupports(VectorOp::Requantize, DType::Int32, DType::UInt8));
    EXPECT_FALSE(isa::vectorSupports(VectorOp::Quantize, DType::Int32, DType::Int8));
    EXPECT_TRUE(isa::vectorSupports(VectorOp::Dequantize, DType::Int8, DType::Fp32));
    EXPECT_FALSE(isa::vectorSupports(VectorOp::Relu, DType::Int8, DType::Int8));
    EXPECT_FALSE(isa::vectorSupports(VectorOp::Add, DType::Int8, DType::Int8));
    EXPECT_TRUE(isa::vectorSupports(VectorOp::Max, DType::Int8, DType::Int8));
    EXPECT_FALSE(isa::vectorSupports(VectorOp::Max, DType::Int8, DType::Int32));
}

TEST(VectorAlu, NarrowIntegersAreOrderedAsTheyAre) {
    // A max pool of int8 values: signed order, the immediate's low byte an int8.
    const std::vector<int8_t> a{-128, -3, 5, 127}, b{-127, -4, 5, -128};
    EXPECT_EQ(run<int8_t>(VectorOp::Max, DType::Int8, DType::Int8, 1, 4, a, b, isa::Operand1Mode::Full),
              (std::vector<int8_t>{-127, -3, 5, 127}));
    EXPECT_EQ(run<int8_t>(VectorOp::Min, DType::Int8, DType::Int8, 1, 4, a, {}, isa::Operand1Mode::Immediate, bits(int32_t{-3})),
              (std::vector<int8_t>{-128, -3, -3, -3}));
    EXPECT_EQ(run<int8_t>(VectorOp::Copy, DType::Int8, DType::Int8, 2, 2, a), a);
    // uint8: unsigned order.
    EXPECT_EQ(run<uint8_t>(VectorOp::Max, DType::UInt8, DType::UInt8, 1, 3, std::vector<uint8_t>{0, 200, 7},
                           std::vector<uint8_t>{255, 100, 7}, isa::Operand1Mode::Full),
              (std::vector<uint8_t>{255, 200, 7}));
}

}  // namespace
}  // namespace npusim::hw
