// Memory IR: where every tensor and on-chip buffer lives. Tensors live in DRAM (offsets inside
// the job's context window) or, for intermediates that fit, resident in SRAM; on-chip buffers
// have an address space, offset, size and the op whose lifetime they share. Nothing is
// implicit: a buffer that is not here does not exist.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "arch/tensor.h"
#include "compiler/graph/graph.h"

namespace npusim::compiler {

enum class AddressSpace : uint8_t { Dram, Sram, Accumulator };

/// What a tensor is to the job.
enum class TensorRole : uint8_t { Weight, Input, Output, Intermediate };

/// Where a tensor's bytes live. Weights, inputs and outputs are in DRAM (offsets inside the
/// job's context window). An intermediate stays resident in SRAM from its producer to its
/// last reader when it fits beside their working sets; when it does not, it is spilled: it
/// lives in DRAM and the commands that store and reload it are spill commands.
struct TensorHome {
    ValueId value = kNoValue;
    TensorRole role = TensorRole::Intermediate;
    AddressSpace space = AddressSpace::Dram;
    uint64_t offset = 0, bytes = 0;
    /// Ops (by position) between which the tensor is live; weights and inputs are live from
    /// the job's start, outputs to its end.
    int firstOp = 0, lastOp = 0;
    /// The value whose bytes these are: the tensor's own, or for a view (TileProgram::views)
    /// the value it reshapes. Synchronisation tracks storage, not values.
    ValueId storage = kNoValue;
    /// A resident tensor's buffer in MemoryPlan::buffers.
    uint32_t buffer = 0;
    /// Whether some command stores or loads the tensor (an op's unused result is never written).
    bool accessed = false;
    /// Whether the tensor crosses a job boundary: a CPU segment reads or writes it, or it lives
    /// across one or across the start of a weight phase. It then lives in DRAM by design, not
    /// spilled: on-chip memory is only a job's own.
    bool jobBoundary = false;
    /// Whether an indexed load reads the tensor as its index list, which it takes from DRAM:
    /// the tensor lives there by design, not spilled.
    bool indexList = false;
    /// A spilled tensor: the SRAM size that would have held it beside the working sets of the
    /// ops it lives across.
    uint64_t sramToKeep = 0;

    bool resident() const { return space == AddressSpace::Sram; }
    bool spilled() const { return role == TensorRole::Intermediate && !resident() && accessed && !jobBoundary && !indexList; }
};

/// A weight copied into DRAM when its phase begins: the bytes at `imageOffset` of the weights
/// image, to its home's offset, for the op that reads it first.
struct StreamedWeight {
    ValueId value = kNoValue;
    uint64_t imageOffset = 0;
    uint32_t firstReader = 0;
};

/// Weights that DRAM cannot hold all at once are streamed: the ops are cut into phases, each
/// starting a new job (at op position `firstOp`) before which the weights the phase reads
/// first are uploaded. A weight stays in DRAM from its phase's start to its last reader, and
/// its bytes are then free for later tensors, weights of later phases among them.
struct WeightPhase {
    int firstOp = 0;
    std::vector<StreamedWeight> uploads;
};

/// An on-chip buffer slot, owned by one op.
struct OnchipBuffer {
    uint32_t id = 0;
    AddressSpace space = AddressSpace::Sram;
    uint64_t offset = 0, bytes = 0;
    uint32_t opId = 0;
    std::string name;  ///< role and slot, e.g. "a[1]"
};

/// The buffers an op uses, by role; each role has one or two slots.
struct OpBuffers {
    std::vector<uint32_t> a, b, bias, accumulator;
    /// Per GEMM epilogue step with an operand, in order, its slots.
    std::vector<std::vector<uint32_t>> operands;
    /// Vector kernels: per kernel, per buffer of its problem, the slot ids.
    std::vector<std::vector<std::vector<uint32_t>>> vector;
    /// Row pitch in elements of the A and B slots (may exceed the block to avoid bank conflicts).
    int64_t aPitch = 0, bPitch = 0;
};

struct MemoryPlan {
    uint64_t dramBytes = 0;                       ///< size of the context window
    /// The weights image: the resident weights at their offset - weightsOffset, uploaded once
    /// (every weight, without weight phases), then the streamed weights at their
    /// StreamedWeight::imageOffset.
    std::vector<std::byte> weights;
    uint64_t weightsOffset = 0;                   ///< where the resident image goes
    uint64_t residentWeightBytes = 0;             ///< the image's resident part: [0, this)
    std::vector<WeightPhase> weightPhases;        ///< empty when every weight is resident
    std::vector<TensorHome> tensors;              ///< add with addTensor
    std::vector<OnchipBuffer> buffers;            ///< indexed by id
    std::map<uint32_t, OpBuffers> opBuffers;      ///< by op id

    /// Gives a value its home (one per value).
    void addTensor(const TensorHome& home);
    bool hasTensor(ValueId value) const { return tensorIndex_.contains(value); }
    /// Throws std::out_of_range when the value has no home.
    const TensorHome& tensor(ValueId value) const;
    TensorHome& tensor(ValueId value);
    /// Where a weight's bytes are in the weights image (a streamed weight's upload source, or a
    /// resident one's place); nullopt for a value that is not a weight.
    std::optional<uint64_t> weightImageOffset(ValueId value) const;
    /// Per op position (`opIds` in execution order), bytes of SRAM in use while the op runs:
    /// its own buffer slots and the resident intermediates live across it.
    std::vector<uint64_t> sramInUse(const std::vector<uint32_t>& opIds) const;
    /// The values kept resident in SRAM.
    std::set<ValueId> residentValues() const;

private:
    std::unordered_map<ValueId, size_t> tensorIndex_;  ///< value -> its entry in tensors
};

/// Text form (--emit=mem).
std::string printMemoryPlan(const MemoryPlan& plan, const Graph& graph);

}  // namespace npusim::compiler
