// DMA execution: burst planning, the outstanding-request window, data movement and timing.
#include "hw_model/dma/dma_engine.h"

#include <algorithm>
#include <deque>

#include "hw_model/common/memory_access.h"

namespace npusim::hw {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
                     CommandProcessor& processor, const ContextWindow& window, isa::Queue queue,
                     trace::Recorder* recorder)
    : QueueUnit(name, config, clock, processor, queue, recorder, trace::UnitKind::Dma),
      dramSocket("dramSocket"),
      sramSocket("sramSocket"),
      accSocket("accSocket"),
      window_(window) {}

std::vector<DmaEngine::Burst> DmaEngine::planBursts(const isa::Command& command) const {
    using isa::Field;
    const uint64_t rows = command.get(Field::Rows);
    const uint64_t rowBytes = command.get(Field::RowBytes);
    const uint64_t dram = command.get(Field::DramAddr);
    const uint64_t dramStride = command.get(Field::DramStride);
    const uint64_t onchip = command.get(Field::OnchipAddr);
    const uint64_t onchipStride = command.get(Field::OnchipStride);
    const bool transpose = command.get(Field::Transpose) != 0;
    const uint64_t elem = transpose ? command.get(Field::ElemBytes) : 1;
    const uint64_t burstBytes = config_.dma.burstBytes;

    std::vector<Burst> bursts;
    for (uint64_t r = 0; r < rows; ++r) {
        const uint64_t rowStart = window_.base + dram + r * dramStride;
        uint64_t done = 0;
        while (done < rowBytes) {
            // Bursts never cross a burst-aligned boundary; a transposing DMA keeps whole elements.
            uint64_t bytes = std::min(rowBytes - done, burstBytes - (rowStart + done) % burstBytes);
            if (transpose) bytes = std::max(elem, bytes / elem * elem);
            Burst burst{};
            burst.dramAddress = rowStart + done;
            burst.bufferOffset = r * rowBytes + done;
            burst.bytes = bytes;
            if (transpose) {
                // Element (r, c) lands at onchip + c*stride + r*elem.
                burst.onchipAddress = onchip + (done / elem) * onchipStride + r * elem;
                burst.onchipRows = bytes / elem;
                burst.onchipRowBytes = elem;
                burst.onchipStride = onchipStride;
            } else {
                burst.onchipAddress = onchip + r * onchipStride + done;
                burst.onchipRows = 1;
                burst.onchipRowBytes = bytes;
                burst.onchipStride = bytes;
            }
            bursts.push_back(burst);
            done += bytes;
        }
    }
    return bursts;
}

void DmaEngine::execute(const isa::Command& command) {
    using isa::Field;
    const bool load = command.opcode == isa::Opcode::DmaLoad;
    const uint64_t rows = command.get(Field::Rows);
    const uint64_t rowBytes = command.get(Field::RowBytes);
    const uint64_t lastByte =
        command.get(Field::DramAddr) + (rows - 1) * command.get(Field::DramStride) + rowBytes;
    if (rows == 0 || lastByte > window_.size) {
        throw UnitFault{regs::ErrorCode::DramOutOfWindow,
                        trace_.name() + ": bytes [" + std::to_string(command.get(Field::DramAddr)) + ", " +
                            std::to_string(lastByte) + ") lie outside the context window of " +
                            std::to_string(window_.size) + " bytes"};
    }
    constexpr regs::ErrorCode dramError = regs::ErrorCode::DramOutOfWindow;
    constexpr regs::ErrorCode onchipError = regs::ErrorCode::OnchipOutOfRange;
    const auto space = static_cast<isa::MemorySpace>(command.get(Field::Space));
    auto& onchip = space == isa::MemorySpace::Sram ? sramSocket : accSocket;
    const AccessTag tag = tagFor(command);

    staging_.resize(rows * rowBytes);
    const uint64_t start = clock_.now();
    const sc_core::sc_time cycle = clock_.period();
    std::deque<sc_core::sc_time> inFlight;  // completion times of outstanding bursts
    sc_core::sc_time issue = sc_core::SC_ZERO_TIME, finish = sc_core::SC_ZERO_TIME;
    uint64_t dramContention = 0, sramConflicts = 0;
    for (const Burst& burst : planBursts(command)) {
        if (inFlight.size() == config_.dma.maxOutstanding) {
            issue = std::max(issue, inFlight.front());
            inFlight.pop_front();
        }
        MemoryRequest dramRequest{load ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND,
                                  burst.dramAddress, staging_.data() + burst.bufferOffset, 1,
                                  burst.bytes, burst.bytes};
        MemoryRequest onchipRequest{load ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND,
                                    burst.onchipAddress, staging_.data() + burst.bufferOffset,
                                    burst.onchipRows, burst.onchipRowBytes, burst.onchipStride};
        MemoryResponse first, second;
        if (load) {
            first = accessMemory(forwardPath(dramSocket), dramRequest, tag, issue, trace_.name(), dramError);
            second = accessMemory(forwardPath(onchip), onchipRequest, tag, first.done, trace_.name(), onchipError);
            dramContention += first.contentionCycles;
            sramConflicts += second.contentionCycles;
        } else {
            first = accessMemory(forwardPath(onchip), onchipRequest, tag, issue, trace_.name(), onchipError);
            second = accessMemory(forwardPath(dramSocket), dramRequest, tag, first.done, trace_.name(), dramError);
            sramConflicts += first.contentionCycles;
            dramContention += second.contentionCycles;
        }
        inFlight.push_back(second.done);
        finish = std::max(finish, second.done);
        issue += cycle;  // one new request per cycle
    }
    sc_core::wait(clock_.cycles(clock_.toCyclesCeil(finish)));

    // Waiting caused by other masters is stall time; the rest of the command is busy.
    const uint64_t end = clock_.now();
    const uint64_t dramStall = std::min(dramContention, end - start);
    const uint64_t sramStall = std::min(sramConflicts, end - start - dramStall);
    trace_.stall(trace::StallReason::DramContention, command, start, start + dramStall);
    trace_.stall(trace::StallReason::SramBankConflict, command, start + dramStall,
                 start + dramStall + sramStall);
    trace_.busy(command, start + dramStall + sramStall, end, rows * rowBytes);
}

}  // namespace npusim::hw
