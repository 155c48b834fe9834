// DRAM timing: channels with their own data bus, banks with a row buffer each. An access
// waits the controller latency, then for its bank (activate its row unless the open row
// already holds it, precharging another row first), then the column access time, then its
// share of the channel's data bus.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/arch_config.h"
#include "hw_model/common/resource_timeline.h"

namespace npusim::hw {

class DramTiming {
public:
    /// `cyclePs`: the clock period the cycle counts of `config` refer to.
    DramTiming(const DramConfig& config, uint64_t cyclePs);

    struct Result {
        uint64_t end = 0;              ///< ps when the last byte has moved
        uint64_t waitedForOthers = 0;  ///< ps lost to other owners' use of banks and buses
    };
    /// An access of `bytes` at `address`, issued at `issue` (ps), by `owner`.
    Result access(uint64_t issue, uint64_t address, uint64_t bytes, int owner);
    /// Drops resource uses that end before `now` (ps); a no-op while `now` stays where it was
    /// (a unit issues all of a command's accesses at one simulated time).
    void forgetBefore(uint64_t now);

    uint64_t rowHits() const { return rowHits_; }
    uint64_t rowMisses() const { return rowMisses_; }

private:
    struct Bank {
        int64_t openRow = -1;     ///< -1: precharged (no row open)
        uint64_t rowReadyAt = 0;  ///< when the open row can serve column accesses
        ResourceTimeline timeline;  ///< precharge and activate
    };
    /// One interleave segment (within one channel).
    Result segment(uint64_t issue, uint64_t address, uint64_t bytes, int owner);
    uint64_t cycles(uint64_t count) const { return count * cyclePs_; }

    const DramConfig& config_;
    /// log2 of the channels, banks and row bytes (validated powers of two): the address map
    /// shifts and masks per burst instead of dividing.
    const int channelShift_, bankShift_, rowShift_;
    const uint64_t cyclePs_;
    const double psPerByte_;  ///< per channel
    std::vector<ResourceTimeline> buses_;
    std::vector<Bank> banks_;  ///< channel-major
    uint64_t rowHits_ = 0, rowMisses_ = 0;
    uint64_t forgotten_ = 0;  ///< the last `now` uses were dropped before
};

}  // namespace npusim::hw
