// Fault injection: faults a run asks for (npusim run --inject KIND@N), each firing once at the
// N-th event of its kind, for the units, the register file and the driver to act on and the
// reports to show. One injector per simulation, owned by the simulation top.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace npusim::hw {

enum class FaultKind : uint8_t {
    DmaError,  ///< the N-th DMA command gets an error response from DRAM (counted over both engines)
    UnitHang,  ///< the tensor unit stops responding at its N-th command, until the job is aborted
    LostIrq,   ///< the N-th interrupt the NPU raises never reaches the host
    DramFlip,  ///< a bit flips in DRAM where the N-th DMA load from DRAM reads (ECC corrects it)
    SramFlip,  ///< a bit flips on chip where the N-th DMA load from DRAM wrote (parity reports it)
};
std::string_view faultKindName(FaultKind kind);

struct FaultSpec {
    FaultKind kind = FaultKind::DmaError;
    uint64_t at = 1;  ///< the event (1-based) of its kind at which it fires
};

/// Parses "KIND@N" (kinds: dma_error, unit_hang, lost_irq, dram_flip, sram_flip; N >= 1);
/// InputError naming the problem.
FaultSpec parseFaultSpec(const std::string& text);

class FaultInjector {
public:
    explicit FaultInjector(std::vector<FaultSpec> specs);

    /// Counts one event of `kind`; true when a fault fires at it.
    bool trigger(FaultKind kind);

    struct Injected {
        FaultSpec spec;
        uint64_t events = 0;  ///< events of its kind seen
        bool fired = false;
    };
    const std::vector<Injected>& injected() const { return injected_; }

    /// Where bit flips land: the DRAM (a physical address), set by the simulation top, and the
    /// on-chip memories (SRAM, or the accumulator memory), set by the NPU.
    void setDramTarget(std::function<void(uint64_t address)> flip) { flipDram_ = std::move(flip); }
    void setOnchipTarget(std::function<void(bool accumulator, uint64_t address)> flip) { flipOnchip_ = std::move(flip); }
    void flipDram(uint64_t address) const {
        if (flipDram_) flipDram_(address);
    }
    void flipOnchip(bool accumulator, uint64_t address) const {
        if (flipOnchip_) flipOnchip_(accumulator, address);
    }

private:
    std::vector<Injected> injected_;
    std::function<void(uint64_t)> flipDram_;
    std::function<void(bool, uint64_t)> flipOnchip_;
};

}  // namespace npusim::hw
