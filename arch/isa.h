// The NPU command-stream ISA: fixed 64-byte command descriptors, one table (isa_table.cpp)
// drives the encoder, decoder, assembler and disassembler. Semantics of every opcode are
// written as loop nests in docs/ISA.md and next to each table entry.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arch/dtype.h"

namespace npusim::isa {

/// op_id of commands that belong to no graph op (job-level work such as END).
inline constexpr uint32_t kNoOp = UINT32_MAX;

/// Size of one encoded command descriptor.
inline constexpr size_t kCommandBytes = 64;
inline constexpr size_t kCommandBits = kCommandBytes * 8;

enum class Opcode : uint8_t {
    DmaLoad = 1,    ///< DRAM -> on-chip memory, 2D strided, optional transpose
    DmaStore = 2,   ///< on-chip memory -> DRAM, 2D strided, optional transpose
    Gemm = 3,       ///< tensor unit: C(acc) (+)= (A - za) x (B - zb)
    Vector = 4,     ///< vector unit: dst = op(src0, src1)
    SemSignal = 5,  ///< increment a semaphore once the queue's earlier commands are done
    SemWait = 6,    ///< block a queue until a semaphore is positive, then decrement it
    End = 7,        ///< end of the job: completes when every queue has drained
    Loop = 8,       ///< the next `body` descriptors, `count` times, fields stepped (isa_loops.h)
    Step = 9,       ///< per-iteration increments of a loop's body fields, after the body
};

/// The hardware queue a command executes on.
enum class Queue : uint8_t { Load = 0, Store = 1, Tensor = 2, Vector = 3 };
inline constexpr int kQueueCount = 4;

/// What a command does for the model, for reports; it never changes execution.
enum class CommandKind : uint8_t {
    Compute = 0,
    Load = 1,
    Store = 2,
    Spill = 3,
    Reformat = 4,
    Sync = 5,
};
inline constexpr int kCommandKindCount = 6;

/// On-chip address spaces addressed by commands.
enum class MemorySpace : uint8_t { Sram = 0, Accumulator = 1 };

/// Vector unit operations (semantics in docs/ISA.md).
enum class VectorOp : uint8_t {
    Copy = 0,
    Add = 1,
    Sub = 2,
    Mul = 3,
    Max = 4,
    Min = 5,
    Relu = 6,
    Div = 7,
    Clip = 8,         ///< min(max(x, imm), imm2)
    Exp = 9,
    Log = 10,
    Sqrt = 11,
    Rsqrt = 12,
    Reciprocal = 13,
    Tanh = 14,
    Sigmoid = 15,
    Erf = 16,
    ReduceSum = 17,   ///< dst[r] = sum over c of src0[r][c]
    ReduceMax = 18,   ///< dst[r] = max over c of src0[r][c]
    Cast = 19,        ///< dtype -> out dtype
    // The (de)quantisations' scale s is imm or, with a second operand, its fp32 element (a
    // scale per row or column: per channel).
    Quantize = 20,    ///< fp32 -> int8/uint8: saturate(round_even(x / s) + imm2)
    Requantize = 21,  ///< int32 -> int8/uint8: saturate(round_even(float(x) * s) + imm2)
    Dequantize = 22,  ///< int8/uint8/int32 -> fp32: (x - imm2) * s
    Fill = 23,        ///< dst = the low bytes of imm, in dtype; src0 is not read
    Less = 24,        ///< dst = 1 where src0 < operand1, else 0 (false for NaN)
    Equal = 25,       ///< dst = 1 where src0 == operand1, else 0 (false for NaN)
    Gelu = 26,        ///< x * (1 + erf(x / sqrt(2))) / 2: the activation unit's GELU
};
inline constexpr int kVectorOpCount = 27;

/// How the vector unit reads its second operand for element (r, c).
enum class Operand1Mode : uint8_t {
    None = 0,    ///< unary op: no second operand
    Full = 1,    ///< src1[r * src1_stride + c]
    Row = 2,     ///< src1[c]: one row broadcast down the rows
    Column = 3,  ///< src1[r]: one column broadcast across the columns
    Scalar = 4,  ///< src1[0]
    Immediate = 5,  ///< the command's imm field
};

/// Payload fields. Which opcode has which field, and where, is the ISA table.
enum class Field : uint8_t {
    DramAddr,      ///< byte offset inside the job's context DRAM window
    Space,         ///< MemorySpace of the on-chip side
    Transpose,     ///< 1: the DMA transposes a rows x (row_bytes/elem) block; GEMM: the array computes C^T
    ElemBytes,     ///< element size for a transposing or strided DMA
    OnchipAddr,    ///< on-chip byte address
    Rows,
    RowBytes,
    DramStride,    ///< bytes between DRAM rows (0 broadcasts one row)
    OnchipStride,  ///< bytes between on-chip rows
    Planes,             ///< a 3D DMA repeats its 2D block this many times (0 counts as 1)
    DramPlaneStride,    ///< bytes between DRAM planes
    OnchipPlaneStride,  ///< bytes between on-chip planes
    OnchipMove,         ///< 1: the DRAM side is SRAM at DramAddr instead (an on-chip move)
    ElemStride,         ///< bytes between the DRAM elements of a row, each ElemBytes (0: contiguous rows)
    IndexAddr,          ///< an indexed load's row indices: byte offset inside the context window
    IndexBytes,         ///< bytes per row index (4: int32, 8: int64; 0: the load is not indexed)
    IndexLimit,         ///< rows of an indexed load's table: indices lie in [-limit, limit)
    AAddr,         ///< GEMM: A tile (SRAM)
    BAddr,         ///< GEMM: B tile (SRAM)
    CAddr,         ///< GEMM: C tile (accumulator)
    M,
    N,
    K,
    DType,
    Accumulate,
    AStride,       ///< elements between A rows
    BStride,       ///< elements between B rows
    CStride,       ///< elements between C rows
    AZeroPoint,    ///< signed, subtracted from A elements (integer dtypes)
    BZeroPoint,    ///< signed, subtracted from B elements (integer dtypes)
    VectorOp,
    Operand1Mode,
    DstSpace,
    Src0Space,
    Src1Space,
    DstAddr,
    Src0Addr,
    Src1Addr,
    Cols,
    DstStride,     ///< elements between dst rows
    Src0Stride,    ///< elements between src0 rows
    Src1Stride,    ///< elements between src1 rows (Full mode)
    Src0ColStride, ///< elements between src0 columns (0 and 1: contiguous rows)
    Immediate,     ///< 32 raw bits: fp32 or int32 by dtype
    Immediate2,    ///< a second immediate (clip's maximum, a zero point)
    OutDType,      ///< element type written by the vector unit
    Queue,
    Semaphore,
    LoopCount,     ///< iterations of a loop (at least 1)
    LoopBody,      ///< descriptors in the loop's body, nested loops included
    LoopSteps,     ///< step descriptors after the body
    StepTarget0,   ///< a step entry: the body descriptor it increments (index in the body),
    StepField0,    ///< which of its fields (StepField)
    StepValue0,    ///< and by how much per iteration (signed)
    StepTarget1,
    StepField1,
    StepValue1,
    StepTarget2,
    StepField2,
    StepValue2,
    StepTarget3,
    StepField3,
    StepValue3,
};
inline constexpr int kFieldCount = static_cast<int>(Field::StepValue3) + 1;

/// The fields a loop may step: a command's tile id and its addresses.
enum class StepField : uint8_t {
    None = 0,  ///< an unused step entry
    Tile = 1,
    Dram = 2,  ///< dma: DramAddr
    Addr = 3,  ///< dma: OnchipAddr
    A = 4,
    B = 5,
    C = 6,
    Dst = 7,
    Src0 = 8,
    Src1 = 9,
};
inline constexpr int kStepFieldCount = 10;
/// Step entries one step descriptor holds.
inline constexpr int kStepsPerDescriptor = 4;

/// The most payload fields an opcode has (vec).
inline constexpr size_t kMaxPayloadFields = 18;
/// Where each opcode keeps each field in Command's values (-1: the opcode has no such field);
/// built from the ISA table.
using FieldSlots = std::array<std::array<int8_t, kFieldCount>, 256>;
extern const FieldSlots kFieldSlots;

/// A decoded command: its payload fields in the slots of its opcode (a few words, not one per
/// field of the ISA: streams of millions of commands stay small).
struct Command {
    Opcode opcode = Opcode::End;
    CommandKind kind = CommandKind::Sync;
    uint32_t opId = 0;
    uint32_t tileId = 0;
    std::array<uint64_t, kMaxPayloadFields> values{};

    /// A field the opcode does not have reads as zero.
    uint64_t get(Field field) const {
        const int8_t slot = kFieldSlots[static_cast<uint8_t>(opcode)][static_cast<size_t>(field)];
        return slot < 0 ? 0 : values[static_cast<size_t>(slot)];
    }
    /// Setting a field the opcode does not have to zero does nothing; to anything else throws
    /// npusim::InputError. Set the opcode first.
    Command& set(Field field, uint64_t value) {
        const int8_t slot = kFieldSlots[static_cast<uint8_t>(opcode)][static_cast<size_t>(field)];
        if (slot >= 0) {
            values[static_cast<size_t>(slot)] = value;
        } else if (value != 0) {
            missingField(field);
        }
        return *this;
    }
    /// A signed field (stored as two's complement of its width).
    int64_t getSigned(Field field) const;
    Command& setSigned(Field field, int64_t value);

    bool operator==(const Command&) const = default;

private:
    [[noreturn]] void missingField(Field field) const;
};

using EncodedCommand = std::array<std::byte, kCommandBytes>;

/// Packs a command; throws npusim::InputError naming the field that does not fit.
EncodedCommand encode(const Command& command);
/// Unpacks a command; throws npusim::InputError on an unknown opcode or kind, or on set bits
/// that belong to no field.
Command decode(std::span<const std::byte, kCommandBytes> bytes);

/// Encodes a whole stream back to back.
std::vector<std::byte> encodeStream(std::span<const Command> commands);
/// Decodes a stream whose size must be a multiple of kCommandBytes.
std::vector<Command> decodeStream(std::span<const std::byte> bytes);

/// One line of assembler text: `gemm op=3 tile=7 kind=compute a=0x0 b=0x400 ...`.
std::string disassemble(const Command& command);
/// Inverse of disassemble; throws npusim::InputError with the offending token.
Command assemble(std::string_view line);
/// Writes disassemble(command).
std::ostream& operator<<(std::ostream& out, const Command& command);

/// True for ReduceSum and ReduceMax: one result per row.
bool isReduction(VectorOp op);
/// Whether the vector unit executes `op` from `dtype` elements to `out` elements.
bool vectorSupports(VectorOp op, DType dtype, DType out);

/// The queue that executes a command (SemSignal/SemWait carry it in a field; End, Loop and Step
/// have none and report Queue::Load, the command processor handles them itself).
Queue queueOf(const Command& command);

std::string_view opcodeName(Opcode opcode);
std::string_view queueName(Queue queue);
std::string_view commandKindName(CommandKind kind);
std::string_view memorySpaceName(MemorySpace space);
std::string_view vectorOpName(VectorOp op);
std::string_view stepFieldName(StepField field);

/// Every opcode, in encoding order (for tests and tools).
std::vector<Opcode> allOpcodes();

}  // namespace npusim::isa
