// A DMA engine serving one queue: 2D and 3D strided copies between DRAM (inside the job's
// context window) and on-chip memory, split into bursts spread over the engine's channels,
// each with a bounded number in flight, optionally transposing each 2D block on the way; or
// on-chip moves, SRAM to on-chip memory, for intermediates kept resident between ops; or
// indexed loads, whose rows a list of indices read from DRAM picks from a table.
#pragma once

#include <cstdint>
#include <deque>
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
    /// flight (absolute).
    struct Channel {
        sc_core::sc_time issue = sc_core::SC_ZERO_TIME;
        std::deque<sc_core::sc_time> inFlight;
        /// When its next burst issues, after a slot frees in its window (absolute).
        sc_core::sc_time nextIssue(size_t maxOutstanding);
        /// Records a burst issued at nextIssue() that is done at `done`; the next issues a cycle later.
        void issued(const sc_core::sc_time& done, const sc_core::sc_time& cycle);
    };

    const ContextWindow& window_;
    std::vector<std::byte> staging_;
    std::vector<std::byte> indexList_;  ///< an indexed load's indices, read in every mode
    std::vector<Channel> channels_;
    uint64_t doneAt_ = 0;         ///< the cycle the last burst issued so far is done
    uint64_t recordedUntil_ = 0;  ///< the unit's timeline is recorded up to this cycle
};

}  // namespace npusim::hw
