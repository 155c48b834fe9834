// Use of a shared resource (a DRAM data bus, an SRAM bank) over simulated time. A use needs
// the resource for a number of cycles, not necessarily back to back: it takes the free
// cycles from its issue time on, as an arbiter that interleaves requesters would give them.
// Units run ahead of simulated time within a command (temporal decoupling), so requests do
// not arrive in time order; earlier gaps left between later reservations are still used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npusim::hw {

class ResourceTimeline {
public:
    struct Grant {
        uint64_t end = 0;              ///< when the last needed cycle is done
        uint64_t waitedForOthers = 0;  ///< time lost to other owners' uses in between
    };

    /// Takes `duration` of free time from `earliest` on. Times in picoseconds. Most uses start
    /// after every other (an SRAM bank's, nearly all): those append here, without a call.
    Grant use(uint64_t earliest, uint64_t duration, int owner) {
        if (duration == 0) return {earliest, 0};
        if (head_ < uses_.size() && uses_.back().end > earliest) return fillGaps(earliest, duration, owner);
        const uint64_t end = earliest + duration;
        if (head_ < uses_.size() && uses_.back().end == earliest && uses_.back().owner == owner) {
            uses_.back().end = end;  // continues its owner's last use
        } else {
            uses_.push_back({earliest, end, owner});
        }
        return {end, 0};
    }
    /// Drops uses that end at or before `time`: nothing can be requested before now. Called per
    /// access, so the common case (nothing to drop) is a comparison here.
    void forgetBefore(uint64_t time) {
        if (head_ < uses_.size() && uses_[head_].end <= time) drop(time);
    }

private:
    struct Use {
        uint64_t start, end;
        int owner;
    };
    /// Inserts [start, end) of `owner` before uses_[at] (its place in start order), merged with
    /// a neighbour of the same owner it touches.
    void insertAt(size_t at, uint64_t start, uint64_t end, int owner);
    /// use() for a request that starts before the last use ends: it takes the gaps from
    /// `earliest` on, around the uses there.
    Grant fillGaps(uint64_t earliest, uint64_t duration, int owner);
    void drop(uint64_t time);

    /// Sorted by start, never overlapping; uses before `head_` are forgotten. Requests come
    /// mostly in time order, so inserts land at or near the end.
    std::vector<Use> uses_;
    size_t head_ = 0;
    struct Piece {
        uint64_t start, end;
        size_t at;  ///< the use it goes before
    };
    std::vector<Piece> pieces_;  ///< scratch for use()
};

}  // namespace npusim::hw
