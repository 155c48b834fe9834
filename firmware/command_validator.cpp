// Range and capability checks for each opcode.
#include "firmware/command_validator.h"

#include <algorithm>

namespace npusim::firmware {
namespace {

using isa::Field;
using regs::ErrorCode;

/// Bytes of a 2D block: the last row starts at (rows-1)*stride. Overflow-safe for the field
/// widths of the ISA (rows 16 bits, strides and row bytes 32 bits).
uint64_t blockExtent(uint64_t rows, uint64_t rowBytes, uint64_t stride) {
    return (rows - 1) * stride + rowBytes;
}

uint64_t spaceSize(const ArchConfig& config, uint64_t space) {
    if (space == static_cast<uint64_t>(isa::MemorySpace::Sram)) return config.sram.sizeBytes;
    if (space == static_cast<uint64_t>(isa::MemorySpace::Accumulator)) return config.accumulator.sizeBytes;
    return 0;
}

bool fits(uint64_t address, uint64_t extent, uint64_t size) {
    return extent <= size && address <= size - extent;
}

ErrorCode validateDma(const isa::Command& c, const ArchConfig& config, uint64_t windowSize) {
    const uint64_t rows = c.get(Field::Rows), rowBytes = c.get(Field::RowBytes);
    const uint64_t planes = std::max<uint64_t>(1, c.get(Field::Planes));
    if (rows == 0 || rowBytes == 0) return ErrorCode::BadField;
    const uint64_t elem = c.get(Field::ElemBytes), elemStride = c.get(Field::ElemStride);
    const bool wholeElements = (elem == 1 || elem == 2 || elem == 4) && rowBytes % elem == 0;
    // A strided row's DRAM side reaches from its first element to its last.
    uint64_t dramRow = rowBytes;
    if (elemStride != 0) {
        const bool strideable = (wholeElements || elem == 8) && rowBytes % elem == 0;
        if (c.get(Field::Transpose) || !strideable || elemStride < elem) return ErrorCode::BadField;
        dramRow = blockExtent(rowBytes / elem, elem, elemStride);
    }
    // An indexed load reads whole rows of a table of index_limit rows, through a list of
    // rows indices in the window.
    const uint64_t indexBytes = c.get(Field::IndexBytes), limit = c.get(Field::IndexLimit);
    if (indexBytes != 0) {
        const bool valid = (indexBytes == 4 || indexBytes == 8) && c.opcode == isa::Opcode::DmaLoad && limit != 0 &&
                           elemStride == 0 && !c.get(Field::Transpose);
        if (!valid) return ErrorCode::BadField;
        if (!fits(c.get(Field::IndexAddr), rows * indexBytes, windowSize)) return ErrorCode::DramOutOfWindow;
    } else if (limit != 0 || c.get(Field::IndexAddr) != 0) {
        return ErrorCode::BadField;
    }
    const uint64_t dramPlane = blockExtent(indexBytes != 0 ? limit : rows, dramRow, c.get(Field::DramStride));
    const bool move = c.get(Field::OnchipMove) != 0;
    if (!fits(c.get(Field::DramAddr), blockExtent(planes, dramPlane, c.get(Field::DramPlaneStride)),
              move ? config.sram.sizeBytes : windowSize)) {
        return move ? ErrorCode::OnchipOutOfRange : ErrorCode::DramOutOfWindow;
    }
    const uint64_t size = spaceSize(config, c.get(Field::Space));
    if (size == 0) return ErrorCode::BadField;
    uint64_t onchipPlane = blockExtent(rows, rowBytes, c.get(Field::OnchipStride));
    if (c.get(Field::Transpose)) {
        if (!config.dma.transpose || !wholeElements) return ErrorCode::BadField;
        // The on-chip block is cols rows of rows*elem bytes.
        onchipPlane = blockExtent(rowBytes / elem, rows * elem, c.get(Field::OnchipStride));
    } else if (elem != 0 && elemStride == 0) {
        return ErrorCode::BadField;
    }
    if (!fits(c.get(Field::OnchipAddr), blockExtent(planes, onchipPlane, c.get(Field::OnchipPlaneStride)), size)) {
        return ErrorCode::OnchipOutOfRange;
    }
    return ErrorCode::None;
}

ErrorCode validateGemm(const isa::Command& c, const ArchConfig& config) {
    const auto dtype = static_cast<DType>(c.get(Field::DType));
    if (c.get(Field::DType) >= kDTypeCount || !config.tensor.supports(dtype)) {
        return ErrorCode::UnsupportedDType;
    }
    const uint64_t m = c.get(Field::M), n = c.get(Field::N), k = c.get(Field::K);
    // A transposed tile is computed as C^T = B^T A^T: m and n exchange on the array.
    const bool transposed = c.get(Field::Transpose) != 0;
    if (m == 0 || n == 0 || k == 0 || !config.tensor.acceptsTile(transposed ? n : m, transposed ? m : n, k)) {
        return ErrorCode::BadField;
    }
    const uint64_t aStride = c.get(Field::AStride), bStride = c.get(Field::BStride),
                   cStride = c.get(Field::CStride);
    if (aStride < k || bStride < n || cStride < n) return ErrorCode::BadField;
    const int64_t za = c.getSigned(Field::AZeroPoint), zb = c.getSigned(Field::BZeroPoint);
    if (isFloat(dtype) ? (za != 0 || zb != 0) : (za < -128 || za > 255 || zb < -128 || zb > 255)) {
        return ErrorCode::BadField;
    }
    const uint64_t e = dtypeSize(dtype);
    const uint64_t sram = config.sram.sizeBytes;
    if (!fits(c.get(Field::AAddr), blockExtent(m, k * e, aStride * e), sram) ||
        !fits(c.get(Field::BAddr), blockExtent(k, n * e, bStride * e), sram) ||
        !fits(c.get(Field::CAddr), blockExtent(m, n * 4, cStride * 4), config.accumulator.sizeBytes)) {
        return ErrorCode::OnchipOutOfRange;
    }
    return ErrorCode::None;
}

ErrorCode validateVector(const isa::Command& c, const ArchConfig& config) {
    if (c.get(Field::VectorOp) >= isa::kVectorOpCount) return ErrorCode::BadField;
    const auto op = static_cast<isa::VectorOp>(c.get(Field::VectorOp));
    if (c.get(Field::DType) >= kDTypeCount || c.get(Field::OutDType) >= kDTypeCount) return ErrorCode::BadField;
    const auto dtype = static_cast<DType>(c.get(Field::DType));
    const auto out = static_cast<DType>(c.get(Field::OutDType));
    if (!isa::vectorSupports(op, dtype, out)) return ErrorCode::UnsupportedDType;
    const auto mode = static_cast<isa::Operand1Mode>(c.get(Field::Operand1Mode));
    if (c.get(Field::Operand1Mode) > static_cast<uint64_t>(isa::Operand1Mode::Immediate)) {
        return ErrorCode::BadField;
    }
    const uint64_t rows = c.get(Field::Rows), cols = c.get(Field::Cols);
    if (rows == 0 || cols == 0) return ErrorCode::BadField;
    const bool reduction = op == isa::VectorOp::ReduceSum || op == isa::VectorOp::ReduceMax;
    const uint64_t dstCols = reduction ? 1 : cols;
    if (c.get(Field::DstStride) < dstCols || c.get(Field::Src0Stride) < cols) return ErrorCode::BadField;
    const uint64_t in = dtypeSize(dtype), outSize = dtypeSize(out);
    // A src0 row spans its columns at their stride.
    const uint64_t src0Span = (cols - 1) * std::max<uint64_t>(c.get(Field::Src0ColStride), 1) + 1;
    auto inSpace = [&](Field space, Field address, uint64_t extent) {
        const uint64_t size = spaceSize(config, c.get(space));
        return size != 0 && fits(c.get(address), extent, size);
    };
    if (!inSpace(Field::DstSpace, Field::DstAddr, blockExtent(rows, dstCols * outSize, c.get(Field::DstStride) * outSize)) ||
        !inSpace(Field::Src0Space, Field::Src0Addr, blockExtent(rows, src0Span * in, c.get(Field::Src0Stride) * in))) {
        return ErrorCode::OnchipOutOfRange;
    }
    uint64_t src1Extent = 0;
    switch (mode) {
        case isa::Operand1Mode::Full:
            if (c.get(Field::Src1Stride) < cols) return ErrorCode::BadField;
            src1Extent = blockExtent(rows, cols * in, c.get(Field::Src1Stride) * in);
            break;
        case isa::Operand1Mode::Row: src1Extent = cols * in; break;
        case isa::Operand1Mode::Column: src1Extent = rows * in; break;
        case isa::Operand1Mode::Scalar: src1Extent = in; break;
        case isa::Operand1Mode::None:
        case isa::Operand1Mode::Immediate: break;
    }
    if (src1Extent > 0 && !inSpace(Field::Src1Space, Field::Src1Addr, src1Extent)) {
        return ErrorCode::OnchipOutOfRange;
    }
    return ErrorCode::None;
}

}  // namespace

ErrorCode validateCommand(const isa::Command& command, const ArchConfig& config, uint64_t windowSize) {
    switch (command.opcode) {
        case isa::Opcode::DmaLoad:
        case isa::Opcode::DmaStore: return validateDma(command, config, windowSize);
        case isa::Opcode::Gemm: return validateGemm(command, config);
        case isa::Opcode::Vector: return validateVector(command, config);
        case isa::Opcode::SemSignal:
        case isa::Opcode::SemWait:
            if (command.get(Field::Queue) >= isa::kQueueCount) return ErrorCode::BadField;
            if (command.get(Field::Semaphore) >= config.semaphores) return ErrorCode::BadSemaphore;
            return ErrorCode::None;
        case isa::Opcode::End:
        case isa::Opcode::Loop:  // a loop's structure is checked when it runs (isa::checkLoop)
        case isa::Opcode::Step: return ErrorCode::None;
    }
    return ErrorCode::IllegalOpcode;
}

}  // namespace npusim::firmware
