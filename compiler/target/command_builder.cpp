// Command construction helpers.
#include "compiler/target/command_builder.h"

#include <stdexcept>

namespace npusim::compiler {

isa::Command dmaCommand(const DmaSpec& spec, uint32_t opId, uint32_t tileId) {
    using isa::Field;
    isa::Command command;
    command.opcode = spec.load ? isa::Opcode::DmaLoad : isa::Opcode::DmaStore;
    command.kind = spec.kind;
    command.opId = opId;
    command.tileId = tileId;
    command.set(Field::DramAddr, spec.dramOffset)
        .set(Field::Space, static_cast<uint64_t>(spec.space))
        .set(Field::OnchipAddr, spec.onchipAddress)
        .set(Field::Rows, spec.rows)
        .set(Field::RowBytes, spec.rowBytes)
        .set(Field::DramStride, spec.dramStride)
        .set(Field::OnchipStride, spec.onchipStride)
        .set(Field::Planes, spec.planes)
        .set(Field::DramPlaneStride, spec.dramPlaneStride)
        .set(Field::OnchipPlaneStride, spec.onchipPlaneStride);
    if (spec.onchipMove) command.set(Field::OnchipMove, 1);
    if (spec.transposeElementBytes) {
        command.set(Field::Transpose, 1).set(Field::ElemBytes, spec.transposeElementBytes);
    }
    if (spec.elementStride) command.set(Field::ElemStride, spec.elementStride).set(Field::ElemBytes, spec.elementBytes);
    if (spec.indexBytes) {
        command.set(Field::IndexAddr, spec.indexAddress)
            .set(Field::IndexBytes, spec.indexBytes)
            .set(Field::IndexLimit, spec.indexLimit);
    }
    return command;
}

isa::Command vectorCommand(const VectorSpec& spec, uint32_t opId, uint32_t tileId) {
    using isa::Field;
    isa::Command command;
    command.opcode = isa::Opcode::Vector;
    command.kind = isa::CommandKind::Compute;
    command.opId = opId;
    command.tileId = tileId;
    command.set(Field::VectorOp, static_cast<uint64_t>(spec.op))
        .set(Field::DType, static_cast<uint64_t>(spec.dtype))
        .set(Field::OutDType, static_cast<uint64_t>(spec.outDType.value_or(spec.dtype)))
        .set(Field::Operand1Mode, static_cast<uint64_t>(spec.mode))
        .set(Field::DstSpace, static_cast<uint64_t>(spec.dstSpace))
        .set(Field::Src0Space, static_cast<uint64_t>(spec.src0Space))
        .set(Field::Src1Space, static_cast<uint64_t>(spec.src1Space))
        .set(Field::DstAddr, spec.dst)
        .set(Field::Src0Addr, spec.src0)
        .set(Field::Src1Addr, spec.src1)
        .set(Field::Rows, spec.rows)
        .set(Field::Cols, spec.cols)
        .set(Field::DstStride, spec.dstStride)
        .set(Field::Src0Stride, spec.src0Stride)
        .set(Field::Src1Stride, spec.src1Stride)
        .set(Field::Src0ColStride, spec.src0ColStride)
        .set(Field::Immediate, spec.immediate)
        .set(Field::Immediate2, spec.immediate2);
    return command;
}

void markTensorTransfer(DmaSpec& spec, const MemoryPlan& plan, ValueId value) {
    const TensorHome& home = plan.tensor(value);
    spec.onchipMove = home.resident();
    const bool transfer = spec.kind == isa::CommandKind::Load || spec.kind == isa::CommandKind::Store;
    if (home.spilled() && transfer) spec.kind = isa::CommandKind::Spill;
}

isa::MemorySpace isaSpace(AddressSpace space) {
    switch (space) {
        case AddressSpace::Sram: return isa::MemorySpace::Sram;
        case AddressSpace::Accumulator: return isa::MemorySpace::Accumulator;
        case AddressSpace::Dram: break;
    }
    throw std::logic_error("DRAM is not an on-chip space");
}

}  // namespace npusim::compiler
