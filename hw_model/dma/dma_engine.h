// A DMA engine serving one queue: 2D and 3D strided copies between DRAM (inside the job's
// context window) and on-chip memory, split into bursts spread over the engine's channels,
// each with a bounded number in flight, optionally transposing each 2D block on the way; or
// on-chip moves, SRAM to on-chip memory, for intermediates kept resident between ops; or
// indexed loads, whose rows a list of indices read from DRAM picks from a table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw_model/common/queue_unit.h"
#include "hw_model/control/context_window.h"
#include "hw_model/dma/burst_plan.h"

namespace npusim::hw {

class DmaEngine : public QueueUnit {
public:
    /// Physical system addresses (DRAM).
    tlm_utils::simple_initiator_socket<DmaEngine> dramSocket;
    tlm_utils::simple_initiator_socket<DmaEngine> sramSocket;
    tlm_utils::simple_initiator_socket<DmaEngine> accSocket;

    DmaEngine(sc_core::sc_module_name name, const ArchConfig& config, const Clock& clock,
              CommandProcessor& processor, const ContextWindow& window, isa::Queue queue,
              trace::Recorder* recorder, bool functional);

    /// Issues the command's bursts behind those of the commands before it and returns when
    /// the last has issued: the engine pipelines commands, their bursts in flight together
    /// within each channel's window. A semaphore signal after a command counts up when its
    /// last burst is done.
    void execute(const isa::Command& command) override;
    void drain(const sc_core::sc_event& arrival) override;
    uint64_t busyUntil() const override { return recordedUntil_; }
    uint64_t completesAt() const override { return doneAt_; }

private:
    /// Reads an indexed load's index list on the engine's channels and returns the table row of
    /// each row; `arrived` becomes when the last index is in (absolute). Out-of-range indices
    /// fault, or in timing-only mode are taken modulo the table's rows.
    std::vector<uint64_t> readIndices(const isa::Command& command, const AccessTag& tag, sc_core::sc_time& arrived);

    /// A channel: when it issues its next burst, and the completion times of its bursts in
    /// flight (absolute), oldest first, in a ring the size of its window.
    class Channel {
    public:
        explicit Channel(size_t maxOutstanding) : window_(maxOutstanding) {}
        /// When its next burst issues, after a slot frees in its window (absolute).
        sc_core::sc_time nextIssue() {
            if (inFlight_ == window_.size()) {
                issue = std::max(issue, window_[oldest_]);
                retireOldest();
            }
            return issue;
        }
        /// Records a burst issued at nextIssue() that is done at `done`; the next issues a cycle later.
        void issued(const sc_core::sc_time& done, const sc_core::sc_time& cycle) {
            const size_t slot = oldest_ + inFlight_;
            window_[slot < window_.size() ? slot : slot - window_.size()] = done;
            ++inFlight_;
            issue += cycle;  // one new request per cycle and channel
        }
        /// Forgets the bursts done by `now`.
        void retireBefore(const sc_core::sc_time& now) {
            while (inFlight_ > 0 && window_[oldest_] <= now) retireOldest();
        }

        sc_core::sc_time issue = sc_core::SC_ZERO_TIME;

    private:
        void retireOldest() {
            if (++oldest_ == window_.size()) oldest_ = 0;
            --inFlight_;
        }
        std::vector<sc_core::sc_time> window_;
        size_t oldest_ = 0, inFlight_ = 0;
    };

    const ContextWindow& window_;
    std::vector<std::byte> staging_;
    std::vector<std::byte> indexList_;  ///< an indexed load's indices, read in every mode
    std::vector<Channel> channels_;
    uint64_t doneAt_ = 0;         ///< the cycle the last burst issued so far is done
    uint64_t recordedUntil_ = 0;  ///< the unit's timeline is recorded up to this cycle
};

}  // namespace npusim::hw
