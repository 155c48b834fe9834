// Address mapping, row-buffer state and bus sharing.
#include "hw_model/dram/dram_timing.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace npusim::hw {
namespace {

/// Accesses longer than this (host copies, command buffer fetches) stream over every channel
/// at full bandwidth instead of being timed segment by segment.
constexpr uint64_t kStreamBytes = 4096;

}  // namespace

DramTiming::DramTiming(const DramConfig& config, uint64_t cyclePs)
    : config_(config),
      channelShift_(std::countr_zero(config.channels)),
      bankShift_(std::countr_zero(config.banks)),
      rowShift_(std::countr_zero(config.rowBytes)),
      cyclePs_(cyclePs),
      psPerByte_(static_cast<double>(cyclePs) * config.channels / config.bytesPerCycle),
      buses_(config.channels),
      banks_(uint64_t{config.channels} * config.banks) {
    if (!std::has_single_bit(config.channels) || !std::has_single_bit(config.banks) || !std::has_single_bit(config.rowBytes)) {
        throw std::invalid_argument("DRAM channels, banks and row bytes must be powers of two (the arch config validation checks)");
    }
}

void DramTiming::forgetBefore(uint64_t now) {
    if (now == forgotten_) return;
    forgotten_ = now;
    for (ResourceTimeline& bus : buses_) bus.forgetBefore(now);
    for (Bank& bank : banks_) bank.timeline.forgetBefore(now);
}

DramTiming::Result DramTiming::access(uint64_t issue, uint64_t address, uint64_t bytes, int owner) {
    if (bytes > kStreamBytes) {
        // A long stream: one row activation's latency, then every channel's bus in parallel.
        const uint64_t ready = issue + cycles(config_.latencyCycles + config_.tRcdCycles + config_.tCasCycles);
        const auto perChannel = static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) * psPerByte_ / config_.channels));
        Result result{ready, 0};
        for (ResourceTimeline& bus : buses_) {
            const ResourceTimeline::Grant grant = bus.use(ready, perChannel, owner);
            result.end = std::max(result.end, grant.end);
            result.waitedForOthers = std::max(result.waitedForOthers, grant.waitedForOthers);
        }
        return result;
    }
    Result result{issue, 0};
    const uint64_t interleave = DramConfig::channelInterleaveBytes;
    for (uint64_t done = 0; done < bytes;) {
        const uint64_t part = std::min(bytes - done, interleave - (address + done) % interleave);
        const Result piece = segment(issue, address + done, part, owner);
        result.end = std::max(result.end, piece.end);
        result.waitedForOthers += piece.waitedForOthers;
        done += part;
    }
    return result;
}

DramTiming::Result DramTiming::segment(uint64_t issue, uint64_t address, uint64_t bytes, int owner) {
    // [row | bank | column within the channel | channel | byte within the interleave unit]
    constexpr int interleaveShift = std::countr_zero(DramConfig::channelInterleaveBytes);
    constexpr uint64_t interleaveMask = DramConfig::channelInterleaveBytes - 1;
    const uint64_t unit = address >> interleaveShift;
    const uint64_t channel = unit & (uint64_t{config_.channels} - 1);
    const uint64_t channelAddress = ((unit >> channelShift_) << interleaveShift) | (address & interleaveMask);
    const uint64_t rowIndex = channelAddress >> rowShift_;
    Bank& bank = banks_[(channel << bankShift_) + (rowIndex & (uint64_t{config_.banks} - 1))];
    const auto row = static_cast<int64_t>(rowIndex >> bankShift_);

    Result result;
    const uint64_t ready = issue + cycles(config_.latencyCycles);
    uint64_t columnStart;
    if (config_.pagePolicy == PagePolicy::Open && bank.openRow == row) {
        ++rowHits_;
        columnStart = std::max(ready, bank.rowReadyAt);
    } else {
        ++rowMisses_;
        const bool precharge = config_.pagePolicy == PagePolicy::Open && bank.openRow >= 0;
        const uint64_t prepare = cycles((precharge ? config_.tRpCycles : 0) + config_.tRcdCycles);
        const ResourceTimeline::Grant activation = bank.timeline.use(ready, prepare, owner);
        result.waitedForOthers += activation.waitedForOthers;
        columnStart = activation.end;
        bank.openRow = config_.pagePolicy == PagePolicy::Open ? row : -1;
        bank.rowReadyAt = activation.end;
    }
    const auto transfer = static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) * psPerByte_));
    const ResourceTimeline::Grant data = buses_[channel].use(columnStart + cycles(config_.tCasCycles), transfer, owner);
    result.waitedForOthers += data.waitedForOthers;
    result.end = data.end;
    return result;
}

}  // namespace npusim::hw
