// GEMM tile execution: operand fetch, arithmetic, and pipelined systolic timing.
#include "hw_model/tensor/tensor_unit.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "hw_model/common/memory_access.h"

namespace npusim::hw {
namespace {

/// Writes the transpose of a rows x cols matrix of `elem`-byte elements.
void transposeInto(std::byte* out, const std::byte* in, uint64_t rows, uint64_t cols, uint64_t elem) {
    for (uint64_t r = 0; r < rows; ++r) {
        for (uint64_t c = 0; c < cols; ++c) std::memcpy(out + (c * rows + r) * elem, in + (r * cols + c) * elem, elem);
    }
}

/// The tile the array computes for a transposed command, C^T = B^T A^T (its operands are set
/// by TensorUnit::compute).
GemmTile transposedTile(const GemmTile& tile) {
    GemmTile t = tile;
    std::swap(t.m, t.n);
    std::swap(t.aZeroPoint, t.bZeroPoint);
    t.a = t.b = nullptr;
    t.c = nullptr;
    return t;
}

}  // namespace

TensorUnit::TensorUnit(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
                       CommandProcessor& processor, trace::Recorder* recorder, bool functional,
                       std::unique_ptr<TensorCore> core)
    : QueueUnit(name, config, clock, processor, isa::Queue::Tensor, recorder, trace::UnitKind::Tensor, functional),
      sramSocket("sramSocket"),
      accSocket("accSocket"),
      core_(core ? std::move(core) : makeModelTensorCore()) {}

void TensorUnit::execute(const isa::Command& command) {
    using isa::Field;
    if (injectedFault(FaultKind::UnitHang)) {
        hangUntilAbort();  // the command never completes; the job's abort releases the unit
        return;
    }
    GemmTile tile;
    tile.dtype = static_cast<DType>(command.get(Field::DType));
    tile.m = static_cast<uint32_t>(command.get(Field::M));
    tile.n = static_cast<uint32_t>(command.get(Field::N));
    tile.k = static_cast<uint32_t>(command.get(Field::K));
    tile.aZeroPoint = static_cast<int32_t>(command.getSigned(Field::AZeroPoint));
    tile.bZeroPoint = static_cast<int32_t>(command.getSigned(Field::BZeroPoint));
    tile.accumulate = command.get(Field::Accumulate) != 0;
    const uint64_t e = dtypeSize(tile.dtype);
    const uint64_t aBytes = uint64_t{tile.m} * tile.k * e, bBytes = uint64_t{tile.k} * tile.n * e,
                   cBytes = uint64_t{tile.m} * tile.n * 4;
    std::byte* const a = staged(a_, aBytes);
    std::byte* const b = staged(b_, bBytes);
    tile.a = a;
    tile.b = b;
    tile.c = staged(c_, cBytes);
    const MemoryRequest aRead{tlm::TLM_READ_COMMAND, command.get(Field::AAddr), a, tile.m,
                              tile.k * e, command.get(Field::AStride) * e};
    const MemoryRequest bRead{tlm::TLM_READ_COMMAND, command.get(Field::BAddr), b, tile.k,
                              tile.n * e, command.get(Field::BStride) * e};
    const MemoryRequest cRead{tlm::TLM_READ_COMMAND, command.get(Field::CAddr), tile.c, tile.m,
                              uint64_t{tile.n} * 4, command.get(Field::CStride) * 4};
    MemoryRequest cWrite = cRead;
    cWrite.command = tlm::TLM_WRITE_COMMAND;
    // A transposed tile: the array computes C^T = B^T A^T, holding A (weight stationary) and
    // streaming B's n columns; transposers at its edges keep the operands and C as stored.
    const bool transposed = command.get(Field::Transpose) != 0;
    const GemmTile onArray = transposed ? transposedTile(tile) : tile;
    const MemoryRequest& held = transposed ? aRead : bRead;
    const MemoryRequest& streamedOperand = transposed ? bRead : aRead;

    const AccessTag tag = tagFor(command);
    uint64_t contention = 0;
    const uint64_t now = clock_.now();
    // Issues an access `at` an absolute cycle; returns the cycle it completes.
    auto access = [&](tlm::tlm_fw_transport_if<>& target, const MemoryRequest& request, uint64_t at) {
        const MemoryResponse response = memory_.access(target, request, tag, clock_.cycles(at - now),
                                                     trace_.name(), regs::ErrorCode::OnchipOutOfRange);
        contention += response.contentionCycles;
        return now + clock_.toCyclesCeil(response.done);
    };
    auto& sram = forwardPath(sramSocket);
    auto& accumulator = forwardPath(accSocket);
    const TilePhases phases =
        core_->phases({onArray.dtype, onArray.m, onArray.n, onArray.k, onArray.accumulate},
                      tilePhases(config_.tensor, onArray.dtype, onArray.m, onArray.k, onArray.accumulate),
                      command.opId, command.tileId);

    // Preload the stationary operand: into the shadow buffer while the previous tile streams,
    // or, single-buffered, once the previous tile has left the array.
    const uint64_t preloadStart = config_.tensor.doubleBuffered ? now : std::max(now, drainEnd_);
    uint64_t preloaded = preloadStart + phases.preload;
    if (preloadsWeights()) {
        preloaded = std::max(preloaded, access(sram, held, preloadStart));
    } else if (tile.accumulate) {
        preloaded = std::max(preloaded, access(accumulator, cRead, preloadStart));
    }

    // Stream once the array is free; the streamed operands are read as they enter.
    const uint64_t streamStart = std::max(preloaded, streamEnd_);
    uint64_t streamed = streamStart + phases.stream;
    streamed = std::max(streamed, access(sram, streamedOperand, streamStart));
    if (!preloadsWeights()) streamed = std::max(streamed, access(sram, held, streamStart));

    // Results reach the accumulator memory as they drain (read-modify-write when accumulating).
    const uint64_t resultsStart = streamStart + phases.firstResult;
    if (tile.accumulate && preloadsWeights()) access(accumulator, cRead, resultsStart);
    if (functional_) computeValues([&] { compute(tile, onArray, transposed); });
    const uint64_t written = access(accumulator, cWrite, resultsStart);

    // The unit's timeline: from where it stood (or now) to the end of this tile's stream. The
    // stream ended late by whatever memory waits were not hidden; the part of that caused by
    // other units' bank use is a stall, recorded first; the rest is busy.
    const uint64_t idealStreamEnd =
        std::max(preloadStart + phases.preload, streamEnd_) + phases.stream;
    const uint64_t recordStart = std::max(now, recordedUntil_);
    const uint64_t late = streamed > idealStreamEnd ? streamed - idealStreamEnd : 0;
    const uint64_t stall = std::min({contention, late, streamed - recordStart});
    trace_.stall(trace::StallReason::SramBankConflict, command, recordStart, recordStart + stall);
    trace_.busy(command, recordStart + stall, streamed, aBytes + bBytes + cBytes,
                uint64_t{tile.m} * tile.n * tile.k);
    recordedUntil_ = streamed;
    streamEnd_ = streamed;
    drainEnd_ = std::max({drainEnd_, streamed + phases.latency, written});
    last_ = command;

    // Take the next command when the shadow buffer is free (double-buffered) or when this
    // tile is complete.
    const uint64_t resume = config_.tensor.doubleBuffered ? streamStart : drainEnd_;
    sc_core::wait(clock_.cycles(resume - now));
}

void TensorUnit::compute(const GemmTile& tile, GemmTile onArray, bool transposed) {
    if (!transposed) {
        core_->compute(tile);
        return;
    }
    const uint64_t e = dtypeSize(tile.dtype);
    std::byte* const a = staged(aFed_, uint64_t{tile.n} * tile.k * e);
    std::byte* const b = staged(bFed_, uint64_t{tile.k} * tile.m * e);
    std::byte* const c = staged(cFed_, uint64_t{tile.n} * tile.m * 4);
    transposeInto(a, tile.b, tile.k, tile.n, e);
    transposeInto(b, tile.a, tile.m, tile.k, e);
    if (tile.accumulate) transposeInto(c, tile.c, tile.m, tile.n, 4);
    onArray.a = a;
    onArray.b = b;
    onArray.c = c;
    core_->compute(onArray);
    transposeInto(tile.c, c, tile.n, tile.m, 4);
}

void TensorUnit::settle(uint64_t cycle) {
    const uint64_t until = std::min(cycle, drainEnd_);
    if (until <= recordedUntil_) return;
    trace_.continued(last_, recordedUntil_, until);
    recordedUntil_ = until;
}

void TensorUnit::drain(const sc_core::sc_event& arrival) {
    const uint64_t now = clock_.now();
    if (drainEnd_ > now) sc_core::wait(clock_.cycles(drainEnd_ - now), arrival);
    if (clock_.now() >= drainEnd_) settle(drainEnd_);  // else a next command keeps the pipeline going
}

}  // namespace npusim::hw
