// Vector command execution: operand fetch, arithmetic, and lane/pipeline timing.
#include "hw_model/vector/vector_unit.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "hw_model/common/memory_access.h"

namespace npusim::hw {

VectorUnit::VectorUnit(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
                       CommandProcessor& processor, trace::Recorder* recorder, bool functional,
                       std::unique_ptr<VectorCore> core)
    : QueueUnit(name, config, clock, processor, isa::Queue::Vector, recorder, trace::UnitKind::Vector, functional),
      sramSocket("sramSocket"),
      accSocket("accSocket"),
      core_(core ? std::move(core) : makeModelVectorCore()) {}

void VectorUnit::execute(const isa::Command& command) {
    using isa::Field;
    VectorBlock block;
    block.op = static_cast<isa::VectorOp>(command.get(Field::VectorOp));
    block.dtype = static_cast<DType>(command.get(Field::DType));
    block.mode = static_cast<isa::Operand1Mode>(command.get(Field::Operand1Mode));
    block.rows = static_cast<uint32_t>(command.get(Field::Rows));
    block.cols = static_cast<uint32_t>(command.get(Field::Cols));
    block.outDType = static_cast<DType>(command.get(Field::OutDType));
    block.immediate = static_cast<uint32_t>(command.get(Field::Immediate));
    block.immediate2 = static_cast<uint32_t>(command.get(Field::Immediate2));
    const uint64_t in = dtypeSize(block.dtype), out = dtypeSize(block.outDType);
    const uint64_t rowBytes = uint64_t{block.cols} * in;
    const uint64_t elements = uint64_t{block.rows} * block.cols;
    const bool reduction = isa::isReduction(block.op);
    const uint64_t dstRowBytes = (reduction ? 1 : block.cols) * out;
    const uint64_t src1Elements = operand1Elements(block.mode, block.rows, block.cols);
    // A strided src0 row is read over its whole span, then its elements are packed.
    const uint64_t colStride = std::max<uint64_t>(command.get(Field::Src0ColStride), 1);
    const uint64_t src0RowBytes = ((block.cols - 1) * colStride + 1) * in;
    std::byte* const src0 = staged(src0_, block.rows * src0RowBytes);
    std::byte* const src1 = staged(src1_, src1Elements * in);
    std::byte* const dst = staged(dst_, block.rows * dstRowBytes);

    auto socketFor = [&](Field spaceField) -> tlm::tlm_fw_transport_if<>& {
        const auto space = static_cast<isa::MemorySpace>(command.get(spaceField));
        return space == isa::MemorySpace::Sram ? forwardPath(sramSocket) : forwardPath(accSocket);
    };
    const AccessTag tag = tagFor(command);
    const std::string& who = trace_.name();
    const uint64_t start = clock_.now();

    // A fill reads nothing: its results depend on the immediate alone.
    const bool readsSrc0 = block.op != isa::VectorOp::Fill;
    const MemoryResponse first =
        readsSrc0 ? memory_.access(socketFor(Field::Src0Space),
                                   {tlm::TLM_READ_COMMAND, command.get(Field::Src0Addr), src0, block.rows, src0RowBytes,
                                    command.get(Field::Src0Stride) * in},
                                   tag, sc_core::SC_ZERO_TIME, who, regs::ErrorCode::OnchipOutOfRange)
                  : MemoryResponse{sc_core::SC_ZERO_TIME, 0};
    if (src0 && colStride > 1) {  // packed in place: an element never moves past one not yet moved
        std::byte* packed = src0;
        for (uint64_t r = 0; r < block.rows; ++r) {
            for (uint64_t c = 0; c < block.cols; ++c, packed += in) {
                std::memmove(packed, src0 + r * src0RowBytes + c * colStride * in, in);
            }
        }
    }
    sc_core::sc_time operandsDone = first.done;
    uint64_t contention = first.contentionCycles;
    if (src1Elements > 0) {
        const bool full = block.mode == isa::Operand1Mode::Full;
        const MemoryResponse second = memory_.access(
            socketFor(Field::Src1Space),
            {tlm::TLM_READ_COMMAND, command.get(Field::Src1Addr), src1,
             full ? block.rows : 1, full ? rowBytes : src1Elements * in,
             full ? command.get(Field::Src1Stride) * in : src1Elements * in},
            tag, sc_core::SC_ZERO_TIME, who, regs::ErrorCode::OnchipOutOfRange);
        operandsDone = std::max(operandsDone, second.done);
        contention += second.contentionCycles;
    }

    block.src0 = src0;
    block.src1 = src1;
    block.dst = dst;
    if (functional_) computeValues([&] { core_->compute(block); });

    // Each group of `lanes` elements takes op_cycles; the first result leaves the pipeline
    // after pipeline_depth cycles (a reduction adds its log2(lanes)-stage adder tree), and
    // results stream out to memory as they are produced.
    const uint64_t groups = (elements + config_.vector.lanes - 1) / config_.vector.lanes;
    const uint64_t depth = config_.vector.pipelineDepth +
                           (reduction ? static_cast<uint64_t>(std::bit_width(config_.vector.lanes) - 1) : 0);
    const uint64_t workCycles = groups * config_.vector.opCycles[static_cast<size_t>(block.op)];
    const uint64_t compute = core_->computeCycles(block, depth + workCycles, command.opId, command.tileId);
    const MemoryResponse written = memory_.access(
        socketFor(Field::DstSpace),
        {tlm::TLM_WRITE_COMMAND, command.get(Field::DstAddr), dst, block.rows, dstRowBytes,
         command.get(Field::DstStride) * out},
        tag, clock_.cycles(config_.vector.pipelineDepth), who, regs::ErrorCode::OnchipOutOfRange);
    contention += written.contentionCycles;
    const uint64_t total = std::max({compute, clock_.toCyclesCeil(operandsDone) + depth,
                                     clock_.toCyclesCeil(written.done)});
    sc_core::wait(clock_.cycles(total));

    const uint64_t stall = std::min(contention, total);
    trace_.stall(trace::StallReason::SramBankConflict, command, start, start + stall);
    trace_.busy(command, start + stall, start + total,
                ((readsSrc0 ? elements : 0) + src1Elements) * in + block.rows * dstRowBytes,
                workCycles * config_.vector.lanes);
}

}  // namespace npusim::hw
