// Banked on-chip memory (SRAM scratchpad or accumulator memory): addresses interleave across
// banks bank_width bytes at a time; each bank serves `ports` accesses per cycle, and two
// initiators that need the same bank at the same time are served one after the other.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "arch/arch_config.h"
#include "hw_model/common/blocking_target.h"
#include "hw_model/common/access_extension.h"
#include "hw_model/common/clock.h"
#include "hw_model/common/resource_timeline.h"
#include "hw_model/common/zeroed_region.h"

#include "hw_model/fault/bit_flips.h"

namespace npusim::hw {

class BankedMemory : public sc_core::sc_module, public BlockingTarget {
public:
    /// Any number of initiators bind here; accesses may carry AccessTag and Block2d.
    Socket tSocket;

    BankedMemory(sc_core::sc_module_name name, const MemoryConfig& config, const Clock& clock);

    /// Zeroes every byte (a context switch); returns the cycles that takes, every bank
    /// writing one bank-width chunk per cycle.
    uint64_t scrub();
    /// Flips a stored bit (an injected fault); the word's parity reports it to the next read,
    /// which fails, until the word is written again.
    void flipBit(uint64_t address, int bit);

private:
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override;
    /// Debug access: copies data without taking time or bank cycles.
    unsigned int transport_dbg(tlm::tlm_generic_payload& payload) override;
    /// Copies the payload's block (`shape`) between storage and the payload; false when it is
    /// out of range.
    bool copyBlock(tlm::tlm_generic_payload& payload, const BlockShape& shape);
    /// Bank-width chunks the access needs from each bank, into perBank_ (the banks it
    /// touches listed in touched_).
    void bankLoad(uint64_t address, uint64_t rows, uint64_t rowBytes, uint64_t stride);
    /// Adds the chunks one row touches, `repeats` times, to perBank_.
    void addRow(uint64_t address, uint64_t bytes, uint64_t repeats);
    void addChunks(uint64_t bank, uint64_t chunks);

    const MemoryConfig& config_;
    const Clock& clock_;
    ZeroedRegion storage_;  ///< mapped on the first data access (none when timing only)
    std::vector<ResourceTimeline> banks_;
    /// Scratch for bankLoad: chunks per bank, zero outside touched_ between accesses.
    std::vector<uint64_t> perBank_;
    std::vector<uint32_t> touched_;
    int widthShift_;  ///< log2 of the bank width
    int banksShift_;  ///< log2 of the bank count when it is a power of two, else -1
    BitFlips flips_;
};

}  // namespace npusim::hw
