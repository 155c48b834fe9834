// Helpers shared by the per-op code generators: building DMA, GEMM and vector commands, and
// naming resources for the sync planner. Internal to compiler/target.
#pragma once

#include <cstdint>
#include <optional>

#include "arch/isa.h"
#include "compiler/graph/graph.h"
#include "compiler/memory/memory_ir.h"
#include "compiler/target/sync_planner.h"

namespace npusim::compiler {

/// Sync-planner resource ids: on-chip buffers by id (a resident tensor by its buffer), DRAM
/// tensors after them by the value whose storage they are.
inline uint32_t bufferResource(uint32_t bufferId) { return bufferId; }
inline uint32_t tensorResource(const MemoryPlan& plan, ValueId value) {
    const TensorHome& home = plan.tensor(value);
    if (home.resident()) return bufferResource(home.buffer);
    return static_cast<uint32_t>(plan.buffers.size()) + home.storage;
}

/// A 2D DMA between a tensor region (in DRAM, or resident in SRAM) and an on-chip buffer.
struct DmaSpec {
    bool load = true;
    isa::CommandKind kind = isa::CommandKind::Load;
    uint64_t dramOffset = 0;  ///< inside the context window, or the SRAM address of a move
    bool onchipMove = false;  ///< the tensor side is resident in SRAM
    isa::MemorySpace space = isa::MemorySpace::Sram;
    uint64_t onchipAddress = 0;
    uint64_t rows = 1, rowBytes = 0, dramStride = 0, onchipStride = 0;
    uint64_t transposeElementBytes = 0;  ///< non-zero for a transposing DMA
    /// A strided row (non-zero elementStride): elements of elementBytes, elementStride DRAM
    /// bytes apart, side by side on chip.
    uint64_t elementBytes = 0, elementStride = 0;
    uint64_t planes = 1, dramPlaneStride = 0, onchipPlaneStride = 0;  ///< a 3D transfer
    /// An indexed load (non-zero indexBytes): the index list's offset in the window, its
    /// element size and the table's rows; dramStride is the table's row stride.
    uint64_t indexAddress = 0, indexBytes = 0, indexLimit = 0;
};

isa::Command dmaCommand(const DmaSpec& spec, uint32_t opId, uint32_t tileId);
/// Marks a DMA whose tensor side is `value`: an on-chip move when the tensor is resident, a
/// spill (store or reload) when it is a spilled intermediate.
void markTensorTransfer(DmaSpec& spec, const MemoryPlan& plan, ValueId value);

/// A vector command over rows x cols 4-byte elements.
struct VectorSpec {
    isa::VectorOp op = isa::VectorOp::Copy;
    DType dtype = DType::Fp32;
    std::optional<DType> outDType;  ///< the result's type when it differs from dtype
    isa::Operand1Mode mode = isa::Operand1Mode::None;
    isa::MemorySpace dstSpace = isa::MemorySpace::Sram, src0Space = isa::MemorySpace::Sram,
                     src1Space = isa::MemorySpace::Sram;
    uint64_t dst = 0, src0 = 0, src1 = 0;
    uint64_t rows = 1, cols = 1, dstStride = 0, src0Stride = 0, src1Stride = 0;
    uint64_t src0ColStride = 0;  ///< src0's columns this many elements apart (0, 1: contiguous)
    uint32_t immediate = 0, immediate2 = 0;
};

isa::Command vectorCommand(const VectorSpec& spec, uint32_t opId, uint32_t tileId);

isa::MemorySpace isaSpace(AddressSpace space);

}  // namespace npusim::compiler
