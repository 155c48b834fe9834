// The one source of truth for the command encoding. docs/ISA.md describes the same layout.
#include "arch/isa_table.h"

#include <array>

namespace npusim::isa {
namespace {

using F = Field;
using V = ValueFormat;

constexpr std::array<std::string_view, kCommandKindCount> kKindNames = {
    "compute", "load", "store", "spill", "reformat", "sync"};
constexpr std::array<std::string_view, kQueueCount> kQueueNames = {"load", "store", "tensor",
                                                                  "vector"};
constexpr std::array<std::string_view, 2> kSpaceNames = {"sram", "acc"};
constexpr std::array<std::string_view, kVectorOpCount> kVectorOpNames = {
    "copy", "add",  "sub",     "mul",  "max",     "min",        "relu",       "div",
    "clip", "exp",  "log",     "sqrt", "rsqrt",   "reciprocal", "tanh",       "sigmoid",
    "erf",  "reduce_sum", "reduce_max", "cast", "quantize", "requantize", "dequantize",
    "fill", "less", "equal", "gelu"};
constexpr std::array<std::string_view, 8> kDTypeNames = {
    "int8", "uint8", "int32", "fp32", "fp16", "bf16", "int64", "bool"};
constexpr std::array<std::string_view, 6> kOperand1ModeNames = {"none",   "full",   "row",
                                                                "column", "scalar", "imm"};

// DMA_LOAD:  for p < max(planes, 1), r < rows, b < row_bytes:
//              onchip[space][addr + p*plane_stride + r*stride + b] =
//                  dram[ctx + dram + p*dram_plane_stride + r*dram_stride + b]
// DMA_STORE: the same loop nest, copying onchip -> dram.
// transpose=1 (e = elem bytes, cols = row_bytes/e): the DRAM block is rows x cols and the
//   on-chip block is its transpose; for r < rows, c < cols, element
//   dram[ctx + dram + r*dram_stride + c*e] <-> onchip[addr + c*stride + r*e]
//   (DMA_LOAD copies it to on-chip memory, DMA_STORE back to DRAM).
// onchip_move=1: the `dram` side is sram[dram] instead (no context base): an on-chip move
//   that keeps an intermediate resident in SRAM between ops.
// elem_stride=s > 0 (e = elem bytes, cols = row_bytes/e): a row's elements lie s bytes apart
//   on the `dram` side and side by side on chip; for c < cols, element
//   dram[ctx + dram + p*dram_plane_stride + r*dram_stride + c*s] <-> onchip[addr + p*plane_stride + r*stride + c*e].
// index_elem=s > 0 (DMA_LOAD only; s = 4 or 8: int32 or int64 indices): an indexed load. Row r
//   of every plane is row i of a table: i is the s-byte little-endian integer at
//   dram[ctx + index + r*s], counted from index_limit when negative, and
//   onchip[space][addr + p*plane_stride + r*stride + b] = dram[ctx + dram + p*dram_plane_stride + i*dram_stride + b];
//   an i outside [-index_limit, index_limit) faults index_out_of_range.
constexpr std::array<FieldLayout, 17> kDmaFields = {{
    {F::DramAddr, "dram", 96, 48, V::Hex},
    {F::Space, "space", 144, 2, V::Enum, kSpaceNames},
    {F::Transpose, "transpose", 146, 1, V::Unsigned},
    {F::ElemBytes, "elem", 147, 4, V::Unsigned},
    {F::OnchipMove, "onchip_move", 151, 1, V::Unsigned},
    {F::OnchipAddr, "addr", 160, 32, V::Hex},
    {F::Rows, "rows", 192, 16, V::Unsigned},
    {F::RowBytes, "row_bytes", 224, 32, V::Unsigned},
    {F::DramStride, "dram_stride", 256, 32, V::Unsigned},
    {F::OnchipStride, "stride", 288, 32, V::Unsigned},
    {F::Planes, "planes", 320, 16, V::Unsigned},
    {F::DramPlaneStride, "dram_plane_stride", 352, 32, V::Unsigned},
    {F::OnchipPlaneStride, "plane_stride", 384, 32, V::Unsigned},
    {F::ElemStride, "elem_stride", 416, 32, V::Unsigned},
    {F::IndexBytes, "index_elem", 152, 4, V::Unsigned},
    {F::IndexAddr, "index", 448, 40, V::Hex},
    {F::IndexLimit, "index_limit", 488, 24, V::Unsigned},
}};

// GEMM: for i < m, j < n:
//         acc = accumulate ? C[i][j] : 0
//         C[i][j] = acc + sum_{p<k} (A[i][p] - a_zp) * (B[p][j] - b_zp)
//       A[i][p] at sram[a + (i*a_stride + p)*e], B[p][j] at sram[b + (p*b_stride + j)*e],
//       C[i][j] at acc[c + (i*c_stride + j)*4]; e = dtype size; C is int32 for integer
//       dtypes (exact, wrapping) and fp32 otherwise (fp32 sums, order unspecified). Requires k <= array rows and n <= array cols.
//       With transpose=1 the array computes C^T = B^T A^T: the same C, with m and n exchanged on the array.
constexpr std::array<FieldLayout, 14> kGemmFields = {{
    {F::AAddr, "a", 96, 32, V::Hex},
    {F::BAddr, "b", 128, 32, V::Hex},
    {F::CAddr, "c", 160, 32, V::Hex},
    {F::M, "m", 192, 16, V::Unsigned},
    {F::N, "n", 208, 16, V::Unsigned},
    {F::K, "k", 224, 16, V::Unsigned},
    {F::DType, "dtype", 240, 4, V::Enum, kDTypeNames},
    {F::Accumulate, "accumulate", 244, 1, V::Unsigned},
    {F::Transpose, "transpose", 245, 1, V::Unsigned},
    {F::AStride, "a_stride", 256, 16, V::Unsigned},
    {F::BStride, "b_stride", 272, 16, V::Unsigned},
    {F::CStride, "c_stride", 288, 16, V::Unsigned},
    {F::AZeroPoint, "a_zp", 304, 16, V::Signed},
    {F::BZeroPoint, "b_zp", 320, 16, V::Signed},
}};

// VECTOR: for r < rows, c < cols (s = max(src0_col_stride, 1)):
//           dst[r*dst_stride + c] = func(src0[r*src0_stride + c*s], operand1(r, c))
//         operand1 by mode: full src1[r*src1_stride + c], row src1[c], column src1[r],
//         scalar src1[0], imm the imm field. Reductions write dst[r*dst_stride] once per row.
//         src elements are `dtype`, dst elements `out` (docs/ISA.md lists the pairs).
constexpr std::array<FieldLayout, 18> kVectorFields = {{
    {F::VectorOp, "func", 96, 8, V::Enum, kVectorOpNames},
    {F::DType, "dtype", 104, 4, V::Enum, kDTypeNames},
    {F::Operand1Mode, "mode", 108, 3, V::Enum, kOperand1ModeNames},
    {F::DstSpace, "dst_space", 112, 2, V::Enum, kSpaceNames},
    {F::Src0Space, "src0_space", 114, 2, V::Enum, kSpaceNames},
    {F::Src1Space, "src1_space", 116, 2, V::Enum, kSpaceNames},
    {F::OutDType, "out", 120, 4, V::Enum, kDTypeNames},
    {F::DstAddr, "dst", 128, 32, V::Hex},
    {F::Src0Addr, "src0", 160, 32, V::Hex},
    {F::Src1Addr, "src1", 192, 32, V::Hex},
    {F::Rows, "rows", 224, 16, V::Unsigned},
    {F::Cols, "cols", 240, 16, V::Unsigned},
    {F::DstStride, "dst_stride", 256, 16, V::Unsigned},
    {F::Src0Stride, "src0_stride", 272, 16, V::Unsigned},
    {F::Src1Stride, "src1_stride", 288, 16, V::Unsigned},
    {F::Immediate, "imm", 320, 32, V::Hex},
    {F::Immediate2, "imm2", 352, 32, V::Hex},
    {F::Src0ColStride, "src0_col_stride", 384, 16, V::Unsigned},
}};

// SEM_SIGNAL: on queue q, after its earlier commands: sem[s] += 1
// SEM_WAIT:   on queue q: wait until sem[s] > 0; sem[s] -= 1
constexpr std::array<FieldLayout, 2> kSemaphoreFields = {{
    {F::Queue, "queue", 96, 3, V::Enum, kQueueNames},
    {F::Semaphore, "sem", 104, 8, V::Unsigned},
}};

constexpr std::array<std::string_view, kStepFieldCount> kStepFieldNames = {
    "none", "tile", "dram", "addr", "a", "b", "c", "dst", "src0", "src1"};

// LOOP: for i < count: run the `body` descriptors that follow, each stepped field of them
//       increased by i * its step; the `steps` step descriptors after the body hold the
//       increments. Loops nest inside bodies (isa_loops.h has the limits).
constexpr std::array<FieldLayout, 3> kLoopFields = {{
    {F::LoopCount, "count", 96, 32, V::Unsigned},
    {F::LoopBody, "body", 128, 16, V::Unsigned},
    {F::LoopSteps, "steps", 144, 8, V::Unsigned},
}};

// STEP: four entries (target, field, value): body descriptor `target`'s `field` grows by
//       `value` per iteration of the loop; field `none` marks an unused entry.
constexpr std::array<FieldLayout, 12> kStepFields = {{
    {F::StepTarget0, "t0", 96, 16, V::Unsigned},
    {F::StepField0, "f0", 112, 8, V::Enum, kStepFieldNames},
    {F::StepValue0, "s0", 128, 48, V::Signed},
    {F::StepTarget1, "t1", 176, 16, V::Unsigned},
    {F::StepField1, "f1", 192, 8, V::Enum, kStepFieldNames},
    {F::StepValue1, "s1", 208, 48, V::Signed},
    {F::StepTarget2, "t2", 256, 16, V::Unsigned},
    {F::StepField2, "f2", 272, 8, V::Enum, kStepFieldNames},
    {F::StepValue2, "s2", 288, 48, V::Signed},
    {F::StepTarget3, "t3", 336, 16, V::Unsigned},
    {F::StepField3, "f3", 352, 8, V::Enum, kStepFieldNames},
    {F::StepValue3, "s3", 368, 48, V::Signed},
}};

constexpr std::array<OpcodeInfo, 9> kOpcodes = {{
    {Opcode::DmaLoad, "dma.load", CommandKind::Load, kDmaFields},
    {Opcode::DmaStore, "dma.store", CommandKind::Store, kDmaFields},
    {Opcode::Gemm, "gemm", CommandKind::Compute, kGemmFields},
    {Opcode::Vector, "vec", CommandKind::Compute, kVectorFields},
    {Opcode::SemSignal, "sem.signal", CommandKind::Sync, kSemaphoreFields},
    {Opcode::SemWait, "sem.wait", CommandKind::Sync, kSemaphoreFields},
    // END: the job completes once every queue has drained.
    {Opcode::End, "end", CommandKind::Sync, {}},
    {Opcode::Loop, "loop", CommandKind::Sync, kLoopFields},
    {Opcode::Step, "step", CommandKind::Sync, kStepFields},
}};

constexpr FieldSlots slotsOf(std::span<const OpcodeInfo> opcodes) {
    FieldSlots slots{};
    for (auto& row : slots) row.fill(-1);
    for (const OpcodeInfo& info : opcodes) {
        for (size_t i = 0; i < info.fields.size(); ++i) {
            slots[static_cast<size_t>(info.opcode)][static_cast<size_t>(info.fields[i].field)] = static_cast<int8_t>(i);
        }
    }
    return slots;
}

constexpr bool fitsTheSlots(std::span<const OpcodeInfo> opcodes) {
    for (const OpcodeInfo& info : opcodes) {
        if (info.fields.size() > kMaxPayloadFields) return false;
    }
    return true;
}
static_assert(fitsTheSlots(kOpcodes), "an opcode has more fields than Command holds");

}  // namespace

constinit const FieldSlots kFieldSlots = slotsOf(kOpcodes);

std::span<const OpcodeInfo> opcodeTable() { return kOpcodes; }

const OpcodeInfo* findOpcode(Opcode opcode) {
    for (const OpcodeInfo& info : kOpcodes) {
        if (info.opcode == opcode) return &info;
    }
    return nullptr;
}

const OpcodeInfo* findMnemonic(std::string_view mnemonic) {
    for (const OpcodeInfo& info : kOpcodes) {
        if (info.mnemonic == mnemonic) return &info;
    }
    return nullptr;
}

std::span<const std::string_view> commandKindNames() { return kKindNames; }
std::span<const std::string_view> queueNames() { return kQueueNames; }
std::span<const std::string_view> memorySpaceNames() { return kSpaceNames; }
std::span<const std::string_view> vectorOpNames() { return kVectorOpNames; }
std::span<const std::string_view> stepFieldNames() { return kStepFieldNames; }

}  // namespace npusim::isa
