// Building vector problems: loads, steps and stores on named buffers, with operand
// broadcasting resolved to the vector unit's modes, and buffers reused once dead so that a
// long program (softmax, layer normalisation) needs few rows of SRAM.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "compiler/tile/vector_ir.h"

namespace npusim::compiler {

/// Thrown when a step needs something the vector unit does not have (a dtype, a function);
/// the lowering turns it into a located diagnostic.
struct VectorUnsupported : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// An input of an elementwise expression: a buffer, or a scalar constant used as an immediate.
struct Operand {
    std::optional<uint32_t> buffer;
    float value = 0;
};

class VectorBuilder {
public:
    VectorBuilder(uint32_t opId, std::string name, Shape dims, int colDims);

    /// Loads a view into a new buffer. The extent follows from the view: Column when it does
    /// not vary along the column dims, Row when it does not vary along the row dims, else Block.
    uint32_t load(const TensorView& view, DType dtype);
    /// Loads a view as a whole block whatever its broadcasting (the DMA repeats elements).
    uint32_t loadBlock(const TensorView& view, DType dtype);

    /// Loads into a new Block buffer the rows of `table` that `indices` name.
    uint32_t loadRows(const TensorView& table, DType dtype, RowIndices indices);

    /// Loads, per row of the block, one plane laid out as `plane` says into a padded row of
    /// `width` elements; `rows` addresses the row dims (its column strides are 0).
    uint32_t loadPlane(const TensorView& rows, DType dtype, PlaneLayout plane, int64_t width);
    /// dst = op(window of `plane`, src1) into a new Block buffer: src1 a Block or Column buffer
    /// of the plane's type, or none.
    uint32_t window(isa::VectorOp op, uint32_t plane, WindowRead read, std::optional<uint32_t> src1);

    /// A new Block buffer of `dtype` whose every element has the low bytes of `bits`.
    uint32_t fill(DType dtype, uint32_t bits);

    /// dst = op(src) elementwise, in a new buffer of `out` type (default: src's).
    uint32_t unary(isa::VectorOp op, uint32_t src, std::optional<DType> out = std::nullopt);
    /// dst = op(src, immediate bits) elementwise; imm2 for clip's maximum and zero points.
    uint32_t immediate(isa::VectorOp op, uint32_t src, uint32_t imm, uint32_t imm2 = 0,
                       std::optional<DType> out = std::nullopt);
    /// As immediate, with the value in src's type (fp32, or int32 truncated for integers).
    uint32_t scalar(isa::VectorOp op, uint32_t src, float value);
    /// dst = op(a, b) elementwise, broadcasting a Column or Row operand over a Block one.
    /// Non-commutative ops with a broadcast first operand are rewritten (b - a negated,
    /// a * reciprocal(b)) or the first operand is loaded again as a block.
    uint32_t binary(isa::VectorOp op, uint32_t a, uint32_t b);
    /// As binary, with either operand possibly an immediate.
    uint32_t binary(isa::VectorOp op, const Operand& a, const Operand& b);
    /// Row reduction of a Block buffer (reduce_sum, reduce_max) into a Column buffer.
    uint32_t reduce(isa::VectorOp op, uint32_t src);

    void store(uint32_t buffer, const TensorView& view);
    /// The finished problem, with dead buffers reused.
    VectorProblem finish();

    BufferExtent extentOf(uint32_t buffer) const { return problem_.buffers.at(buffer).extent; }
    DType dtypeOf(uint32_t buffer) const { return problem_.buffers.at(buffer).dtype; }

private:
    uint32_t newBuffer(DType dtype, BufferExtent extent);
    /// A narrow buffer (int8, uint8, bool; fp16, bf16) cast to int32 or fp32, once; any other
    /// buffer as it is.
    uint32_t widened(uint32_t buffer);
    uint32_t step(isa::VectorOp op, uint32_t dst, uint32_t src0, std::optional<uint32_t> src1,
                  std::optional<uint32_t> imm, uint32_t imm2);

    VectorProblem problem_;
    /// Which load created each buffer (for reloading a broadcast operand as a block).
    std::vector<std::optional<size_t>> loadOf_;
    std::map<uint32_t, uint32_t> widened_;
};

/// Gives each buffer of a problem a physical one: a dead buffer of the same type and extent when
/// there is one, else a new one (loads never share).
void reuseDeadBuffers(VectorProblem& problem);

/// fp32 bits of a value, for immediates.
uint32_t fp32Bits(float value);

}  // namespace npusim::compiler
