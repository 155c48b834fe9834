// GEMM tile execution: operand fetch, arithmetic, and systolic timing.
#include "hw_model/tensor/tensor_unit.h"

#include <algorithm>

#include "hw_model/common/memory_access.h"
#include "hw_model/tensor/gemm_kernel.h"

namespace npusim::hw {

TensorUnit::TensorUnit(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
                       CommandProcessor& processor, trace::Recorder* recorder)
    : QueueUnit(name, config, clock, processor, isa::Queue::Tensor, recorder, trace::UnitKind::Tensor),
      sramSocket("sramSocket"),
      accSocket("accSocket") {}

void TensorUnit::execute(const isa::Command& command) {
    using isa::Field;
    GemmTile tile;
    tile.dtype = static_cast<DType>(command.get(Field::DType));
    tile.m = static_cast<uint32_t>(command.get(Field::M));
    tile.n = static_cast<uint32_t>(command.get(Field::N));
    tile.k = static_cast<uint32_t>(command.get(Field::K));
    tile.aZeroPoint = static_cast<int32_t>(command.getSigned(Field::AZeroPoint));
    tile.bZeroPoint = static_cast<int32_t>(command.getSigned(Field::BZeroPoint));
    tile.accumulate = command.get(Field::Accumulate) != 0;
    const uint64_t e = dtypeSize(tile.dtype);
    const uint64_t aBytes = uint64_t{tile.m} * tile.k * e;
    const uint64_t bBytes = uint64_t{tile.k} * tile.n * e;
    const uint64_t cBytes = uint64_t{tile.m} * tile.n * 4;
    a_.resize(aBytes);
    b_.resize(bBytes);
    c_.resize(cBytes);

    const AccessTag tag = tagFor(command);
    const std::string& who = trace_.name();
    const uint64_t start = clock_.now();
    const uint64_t cyclesPerRow = config_.tensor.cyclesPerRow.at(tile.dtype);

    // Weight load: the k x n weights shift into the array one row per cycle.
    const MemoryResponse weights = accessMemory(forwardPath(sramSocket),
        {tlm::TLM_READ_COMMAND, command.get(Field::BAddr), b_.data(), tile.k, tile.n * e,
         command.get(Field::BStride) * e},
        tag, sc_core::SC_ZERO_TIME, who, regs::ErrorCode::OnchipOutOfRange);
    const uint64_t weightLoad = std::max<uint64_t>(tile.k, clock_.toCyclesCeil(weights.done));

    // Stream: one row of A enters every cycles_per_row cycles; partial sums already in the
    // accumulator are read alongside.
    const sc_core::sc_time streamStart = clock_.cycles(weightLoad);
    const MemoryResponse activations = accessMemory(forwardPath(sramSocket),
        {tlm::TLM_READ_COMMAND, command.get(Field::AAddr), a_.data(), tile.m, tile.k * e,
         command.get(Field::AStride) * e},
        tag, streamStart, who, regs::ErrorCode::OnchipOutOfRange);
    const MemoryRequest cRequest{tlm::TLM_READ_COMMAND, command.get(Field::CAddr), c_.data(),
                                 tile.m, uint64_t{tile.n} * 4, command.get(Field::CStride) * 4};
    sc_core::sc_time operandsDone = activations.done;
    uint64_t contention = weights.contentionCycles + activations.contentionCycles;
    if (tile.accumulate) {
        const MemoryResponse partials = accessMemory(forwardPath(accSocket), cRequest, tag, streamStart, who, regs::ErrorCode::OnchipOutOfRange);
        operandsDone = std::max(operandsDone, partials.done);
        contention += partials.contentionCycles;
    }
    const uint64_t stream = std::max<uint64_t>(uint64_t{tile.m} * cyclesPerRow,
                                               clock_.toCyclesCeil(operandsDone) - weightLoad);

    tile.a = a_.data();
    tile.b = b_.data();
    tile.c = c_.data();
    computeGemmTile(tile);

    // Fill and drain: skewed rows enter across rows-1 cycles and the last column's results
    // leave cols-1 cycles later; results are written to the accumulator as they drain.
    const uint64_t computeEnd =
        weightLoad + stream + (config_.tensor.rows - 1) + (config_.tensor.cols - 1);
    MemoryRequest cWrite = cRequest;
    cWrite.command = tlm::TLM_WRITE_COMMAND;
    const MemoryResponse results =
        accessMemory(forwardPath(accSocket), cWrite, tag, clock_.cycles(weightLoad + config_.tensor.rows), who, regs::ErrorCode::OnchipOutOfRange);
    contention += results.contentionCycles;
    const uint64_t total = std::max(computeEnd, clock_.toCyclesCeil(results.done));
    sc_core::wait(clock_.cycles(total));

    const uint64_t stall = std::min(contention, total);
    trace_.stall(trace::StallReason::SramBankConflict, command, start, start + stall);
    trace_.busy(command, start + stall, start + total, aBytes + bBytes + cBytes,
                uint64_t{tile.m} * tile.n * tile.k);
}

}  // namespace npusim::hw
