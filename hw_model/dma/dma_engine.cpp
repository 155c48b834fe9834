// DMA execution: burst planning, the outstanding-request window, data movement and timing.
#include "hw_model/dma/dma_engine.h"

#include <algorithm>
#include <cstring>

#include "hw_model/common/memory_access.h"

namespace npusim::hw {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
                     CommandProcessor& processor, const ContextWindow& window, isa::Queue queue,
                     trace::Recorder* recorder, bool functional)
    : QueueUnit(name, config, clock, processor, queue, recorder, trace::UnitKind::Dma, functional),
      dramSocket("dramSocket"),
      sramSocket("sramSocket"),
      accSocket("accSocket"),
      window_(window),
      channels_(config.dma.channels, Channel(config.dma.maxOutstanding)) {}

std::vector<uint64_t> DmaEngine::readIndices(const isa::Command& command, const AccessTag& tag, sc_core::sc_time& arrived) {
    using isa::Field;
    const uint64_t rows = command.get(Field::Rows), size = command.get(Field::IndexBytes);
    const uint64_t limit = command.get(Field::IndexLimit), list = command.get(Field::IndexAddr);
    if (list + rows * size > window_.size) {
        throw UnitFault{regs::ErrorCode::DramOutOfWindow, trace_.name() + ": index list bytes [" + std::to_string(list) + ", " +
                                                              std::to_string(list + rows * size) + ") lie outside the context window of " +
                                                              std::to_string(window_.size) + " bytes"};
    }
    // The list's bursts, like any load's; the indices are read whatever the mode, since the
    // rows they name decide the timing.
    indexList_.resize(rows * size);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const uint64_t burstBytes = config_.dma.burstBytes;
    arrived = now;
    size_t b = 0;
    for (uint64_t done = 0; done < rows * size; ++b) {
        const uint64_t address = window_.base + list + done;
        const uint64_t bytes = std::min(rows * size - done, burstBytes - address % burstBytes);
        Channel& channel = channels_[b % channels_.size()];
        const sc_core::sc_time issue = channel.nextIssue() - now;
        const MemoryResponse response =
            memory_.access(forwardPath(dramSocket), {tlm::TLM_READ_COMMAND, address, indexList_.data() + done, 1, bytes, bytes},
                           tag, issue, trace_.name(), regs::ErrorCode::DramOutOfWindow);
        channel.issued(now + response.done, clock_.period());
        arrived = std::max(arrived, now + response.done);
        done += bytes;
    }
    std::vector<uint64_t> tableRows(rows);
    const auto signedLimit = static_cast<int64_t>(limit);
    for (uint64_t r = 0; r < rows; ++r) {
        int64_t index = 0;
        if (size == 4) {
            int32_t word = 0;
            std::memcpy(&word, indexList_.data() + r * size, sizeof word);
            index = word;
        } else {
            std::memcpy(&index, indexList_.data() + r * size, sizeof index);
        }
        if (index < -signedLimit || index >= signedLimit) {
            if (functional_) {
                throw UnitFault{regs::ErrorCode::IndexOutOfRange, trace_.name() + ": row " + std::to_string(r) + "'s index " +
                                                                      std::to_string(index) + " lies outside the table of " +
                                                                      std::to_string(limit) + " rows"};
            }
            index %= signedLimit;  // timing only: the list may hold values no run computed
        }
        tableRows[r] = static_cast<uint64_t>(index < 0 ? index + signedLimit : index);
    }
    return tableRows;
}

void DmaEngine::execute(const isa::Command& command) {
    using isa::Field;
    const bool load = command.opcode == isa::Opcode::DmaLoad;
    if (injectedFault(FaultKind::DmaError)) {
        throw UnitFault{regs::ErrorCode::BusError, std::string(name()) + ": DRAM answered the " +
                                                       (load ? "load" : "store") + "'s first burst with an error response (injected fault)"};
    }
    const uint64_t planes = std::max<uint64_t>(1, command.get(Field::Planes));
    const uint64_t rows = command.get(Field::Rows);
    const uint64_t rowBytes = command.get(Field::RowBytes);
    // A strided row reaches from its first element to its last.
    const uint64_t elem = command.get(Field::ElemBytes), elemStride = command.get(Field::ElemStride);
    const uint64_t dramRow = elemStride != 0 && elem != 0 ? (rowBytes / elem - 1) * elemStride + elem : rowBytes;
    // An indexed load may read any row of its table.
    const uint64_t tableRows = command.get(Field::IndexBytes) != 0 ? command.get(Field::IndexLimit) : rows;
    const uint64_t lastByte = command.get(Field::DramAddr) + (planes - 1) * command.get(Field::DramPlaneStride) +
                              (std::max<uint64_t>(tableRows, 1) - 1) * command.get(Field::DramStride) + dramRow;
    // An on-chip move reads or writes SRAM where a transfer would touch DRAM.
    const bool move = command.get(Field::OnchipMove) != 0;
    const uint64_t farSize = move ? config_.sram.sizeBytes : window_.size;
    if (rows == 0 || lastByte > farSize) {
        throw UnitFault{move ? regs::ErrorCode::OnchipOutOfRange : regs::ErrorCode::DramOutOfWindow,
                        trace_.name() + ": bytes [" + std::to_string(command.get(Field::DramAddr)) + ", " +
                            std::to_string(lastByte) + ") lie outside the " +
                            (move ? "SRAM of " : "context window of ") + std::to_string(farSize) + " bytes"};
    }
    const regs::ErrorCode farError = move ? regs::ErrorCode::OnchipOutOfRange : regs::ErrorCode::DramOutOfWindow;
    auto& far = move ? sramSocket : dramSocket;
    constexpr regs::ErrorCode onchipError = regs::ErrorCode::OnchipOutOfRange;
    const auto space = static_cast<isa::MemorySpace>(command.get(Field::Space));
    auto& onchip = space == isa::MemorySpace::Sram ? sramSocket : accSocket;
    const AccessTag tag = tagFor(command);

    std::byte* const staging = staged(staging_, planes * rows * rowBytes);
    const uint64_t start = clock_.now();
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time cycle = clock_.period();
    // The engine pipelines its commands: this one's bursts issue behind the previous one's,
    // each channel from where it stood, its window still holding their bursts in flight.
    for (Channel& channel : channels_) {
        channel.issue = std::max(channel.issue, now);
        channel.retireBefore(now);
    }
    sc_core::sc_time finish = now;
    uint64_t dramContention = 0, sramConflicts = 0;
    uint64_t& farContention = move ? sramConflicts : dramContention;
    // An indexed load's rows issue once its indices are in.
    std::vector<uint64_t> rowsOfTable;
    const uint64_t indexBytes = rows * command.get(Field::IndexBytes);
    if (indexBytes != 0) {
        sc_core::sc_time arrived;
        rowsOfTable = readIndices(command, tag, arrived);
        for (Channel& channel : channels_) channel.issue = std::max(channel.issue, arrived);
        finish = arrived;
    }
    BurstPlan plan(command, rowsOfTable, move ? 0 : window_.base, config_.dma.burstBytes);
    Burst burst;
    bool more = plan.next(burst);
    // Injected bit flips: in DRAM where the load reads (before it does), on chip where it
    // writes (after it has).
    if (more && load && !move && injectedFault(FaultKind::DramFlip)) faults()->flipDram(burst.dramAddress);
    const bool flipOnchip = more && load && !move && burst.pieceCount > 0 && injectedFault(FaultKind::SramFlip);
    const uint64_t firstOnchip = burst.pieces[0].address;
    const uint64_t copies = burst.copies;  // a load repeating one row reads it once
    // Bursts go to the channels in turn (counted, not divided: this loop runs per burst).
    size_t channelIndex = 0;
    uint64_t burstCount = 0;
    for (; more; more = plan.next(burst)) {
        ++burstCount;
        Channel& channel = channels_[channelIndex];
        if (++channelIndex == channels_.size()) channelIndex = 0;
        const sc_core::sc_time issue = channel.nextIssue() - now;  // from now
        const uint64_t elementBytes = burst.elements == 1 ? burst.bytes : burst.bytes / burst.elements;
        const MemoryRequest dramRequest{load ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND,
                                        burst.dramAddress, at(staging, burst.bufferOffset), burst.elements,
                                        elementBytes, burst.elements > 1 ? burst.elementStride : elementBytes};
        // On chip, each piece of the burst is one access; the burst is done with the last.
        auto onchipAccess = [&](const sc_core::sc_time& when) {
            MemoryResponse done{when, 0};
            for (uint64_t copy = 0; copy < burst.copies; ++copy) {
                for (int i = 0; i < burst.pieceCount; ++i) {
                    const OnchipPiece& piece = burst.pieces[static_cast<size_t>(i)];
                    const MemoryResponse response = memory_.access(
                        forwardPath(onchip),
                        {load ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, piece.address + copy * burst.copyStride,
                         at(staging, piece.bufferOffset), piece.rows, piece.rowBytes, piece.stride},
                        tag, when, trace_.name(), onchipError);
                    done.done = std::max(done.done, response.done);
                    done.contentionCycles += response.contentionCycles;
                }
            }
            return done;
        };
        MemoryResponse first, second;
        if (load) {
            first = memory_.access(forwardPath(far), dramRequest, tag, issue, trace_.name(), farError);
            second = onchipAccess(first.done);
            farContention += first.contentionCycles;
            sramConflicts += second.contentionCycles;
        } else {
            first = onchipAccess(issue);
            second = memory_.access(forwardPath(far), dramRequest, tag, first.done, trace_.name(), farError);
            sramConflicts += first.contentionCycles;
            farContention += second.contentionCycles;
        }
        channel.issued(now + second.done, cycle);
        finish = std::max(finish, now + second.done);
    }
    if (flipOnchip) faults()->flipOnchip(space == isa::MemorySpace::Accumulator, firstOnchip);

    // The command's time on the unit's timeline: from where the previous one's left off (or
    // now) until its last burst is done. Waiting caused by other masters is stall time: the
    // bursts wait side by side, so the command lost about the summed waits over the number
    // of bursts in flight together; the rest is busy.
    const uint64_t end = std::max(clock_.toCyclesCeil(finish), start);
    const uint64_t from = std::min(std::max(start, recordedUntil_), end);
    const uint64_t concurrent = std::max<uint64_t>(
        1, std::min<uint64_t>(uint64_t{config_.dma.maxOutstanding} * config_.dma.channels, burstCount));
    const uint64_t dramStall = std::min(dramContention / concurrent, end - from);
    const uint64_t sramStall = std::min(sramConflicts / concurrent, end - from - dramStall);
    trace_.stall(trace::StallReason::DramContention, command, from, from + dramStall);
    trace_.stall(trace::StallReason::SramBankConflict, command, from + dramStall, from + dramStall + sramStall);
    // A load repeating one row: the command moves the row's bytes, not its copies'.
    trace_.busy(command, from + dramStall + sramStall, end, planes * rows * rowBytes / copies + indexBytes);
    recordedUntil_ = std::max(recordedUntil_, end);
    doneAt_ = std::max(doneAt_, end);

    // The engine takes its next command once this one's bursts have all issued.
    sc_core::sc_time issued = now;
    for (const Channel& channel : channels_) issued = std::max(issued, channel.issue);
    sc_core::wait(clock_.cycles(clock_.toCyclesCeil(issued - now)));
}

void DmaEngine::drain(const sc_core::sc_event& arrival) {
    const uint64_t now = clock_.now();
    if (doneAt_ > now) sc_core::wait(clock_.cycles(doneAt_ - now), arrival);
}

}  // namespace npusim::hw
