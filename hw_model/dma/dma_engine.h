// A DMA engine serving one queue: 2D and 3D strided copies between DRAM (inside the job's
// context window) and on-chip memory, split into bursts spread over the engine's channels,
// each with a bounded number in flight, optionally transposing each 2D block on the way; or
// on-chip moves, SRAM to on-chip memory, for intermediates kept resident between ops; or
// indexed loads, whose rows a list of indices read from DRAM picks from a table.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw_model/common/queue_unit.h"
#include "hw_model/control/context_window.h"

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
    /// Where part of a burst's bytes go on chip: rows x rowBytes at stride.
    struct OnchipPiece {
        uint64_t address = 0, rows = 1, rowBytes = 0, stride = 0;
        uint64_t bufferOffset = 0;  ///< of its first byte inside the staging buffer
    };
    struct Burst {
        uint64_t dramAddress = 0;   ///< physical
        uint64_t bufferOffset = 0;  ///< of the burst's bytes inside the staging buffer
        uint64_t bytes = 0;
        /// A strided row's burst: its elements, `elementStride` bytes apart in DRAM.
        uint64_t elements = 1, elementStride = 0;
        /// A broadcast load's burst: written on chip `copies` times, `copyStride` apart.
        uint64_t copies = 1, copyStride = 0;
        /// A burst covers at most a row tail, whole rows and a row head on chip; a transposing
        /// burst scatters one element per on-chip row.
        std::array<OnchipPiece, 3> pieces{};
        int pieceCount = 0;
    };

    /// The command's bursts, into `bursts`; `tableRows` gives an indexed load's table row for
    /// each of its rows (empty: the command is not indexed).
    void planBursts(const isa::Command& command, const std::vector<uint64_t>& tableRows, std::vector<Burst>& bursts) const;
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
    std::vector<Burst> bursts_;  ///< the command's, reused: a long run plans millions
    std::vector<std::byte> indexList_;  ///< an indexed load's indices, read in every mode
    std::vector<Channel> channels_;
    uint64_t doneAt_ = 0;         ///< the cycle the last burst issued so far is done
    uint64_t recordedUntil_ = 0;  ///< the unit's timeline is recorded up to this cycle
};

}  // namespace npusim::hw
