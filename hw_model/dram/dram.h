// DRAM: sparse storage behind the timing of channels, banks and row buffers (DramTiming).
// Accesses from all masters share banks and buses; time spent waiting for another master is
// reported back as contention.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include <systemc>
#include <tlm>

#include "arch/arch_config.h"
#include "hw_model/common/blocking_target.h"
#include "hw_model/common/clock.h"
#include "hw_model/common/zeroed_region.h"
#include "hw_model/dram/dram_timing.h"
#include "hw_model/fault/bit_flips.h"

namespace npusim::hw {

class Dram : public sc_core::sc_module, public BlockingTarget {
public:
    /// Addresses are offsets from the start of DRAM.
    Socket tSocket;

    Dram(sc_core::sc_module_name name, const DramConfig& config, const Clock& clock);

    /// Bytes moved by the NPU's masters (tagged accesses); host copies are not counted.
    uint64_t bytesRead() const { return bytesRead_; }
    uint64_t bytesWritten() const { return bytesWritten_; }
    /// Transactions (bursts) of the NPU's masters, reads and writes.
    uint64_t transactions() const { return transactions_; }
    /// Row-buffer outcomes of all accesses (a miss activates a row, precharging another first
    /// if one was open).
    uint64_t rowHits() const { return timing_.rowHits(); }
    uint64_t rowMisses() const { return timing_.rowMisses(); }
    /// Flips a stored bit (an injected fault); the SECDED ECC of the word corrects it on the
    /// next read.
    void flipBit(uint64_t address, int bit);
    /// Single-bit errors the ECC corrected on reads.
    uint64_t correctedErrors() const { return correctedErrors_; }

private:
    /// Storage is allocated a huge page at a time, as the model first writes into it.
    static constexpr uint64_t kPageBytes = kHugePageBytes;

    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override;
    /// Debug access: copies data without taking time or bandwidth.
    unsigned int transport_dbg(tlm::tlm_generic_payload& payload) override;
    /// Copies a block between storage and the payload; false when it is out of range.
    bool copyBlock(tlm::tlm_generic_payload& payload);
    void copy(uint64_t address, std::byte* data, uint64_t bytes, bool read);

    const DramConfig& config_;
    const Clock& clock_;
    std::unordered_map<uint64_t, ZeroedRegion> pages_;
    DramTiming timing_;
    uint64_t bytesRead_ = 0, bytesWritten_ = 0, transactions_ = 0;
    BitFlips flips_;
    uint64_t correctedErrors_ = 0;
};

}  // namespace npusim::hw
