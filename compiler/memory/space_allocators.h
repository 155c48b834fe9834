// The two allocators of memory planning that share space by live range: intermediates kept
// resident in SRAM above the ops' working sets, and tensors that live in DRAM.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "arch/arch_config.h"
#include "arch/int_math.h"

namespace npusim::compiler {

inline constexpr uint64_t kDramAlignment = 64;


/// Places intermediates in SRAM above the working sets of the ops they live across, from the
/// top of SRAM down, sharing space between tensors whose live ranges do not meet.
class ResidencyAllocator {
public:
    ResidencyAllocator(std::vector<uint64_t> workingSetEnds, const MemoryConfig& sram);

    /// The SRAM offset of a tensor of `bytes` live over op positions [first, last], or
    /// nullopt when it does not fit there.
    std::optional<uint64_t> place(int first, int last, uint64_t bytes);
    /// The highest end of the working sets of the ops at positions [first, last].
    uint64_t workingSetTop(int first, int last) const;
    /// SRAM bytes that would hold a tensor over [first, last] beside the working sets.
    uint64_t sramToKeep(int first, int last, uint64_t bytes) const;

private:
    struct Placement {
        int first, last;
        uint64_t offset, bytes;
    };
    std::vector<uint64_t> ends_;
    uint64_t period_, size_;
    std::vector<Placement> placed_;
};

/// DRAM for tensors with live ranges (op positions, inclusive), first fit among those whose
/// ranges overlap: tensors that are never live together share bytes. Tensors are placed in
/// the order of their live ranges' starts.
class DramReuse {
public:
    /// Where the shared space begins (after the tensors that live all along).
    void startAt(uint64_t base) { base_ = alignUp(base, kDramAlignment); }

    uint64_t place(int first, int last, uint64_t bytes);
    uint64_t end() const { return end_; }

private:
    struct Placed {
        int first, last;
        uint64_t offset, bytes;
    };
    uint64_t base_ = 0, end_ = 0;
    std::vector<Placed> active_;
};

}  // namespace npusim::compiler
